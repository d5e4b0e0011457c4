#!/usr/bin/env bash
# Device run 3: stage vLLM wheel part 2 in /tmp (the machine stays warm between runs).
cp .device/validate/p2/part1 /tmp/ && ls -la /tmp/part*
