#!/usr/bin/env bash
# Device run 4: stage vLLM wheel part 3 in /tmp (the machine stays warm between runs).
cp .device/validate/p3/part2 /tmp/ && ls -la /tmp/part*
