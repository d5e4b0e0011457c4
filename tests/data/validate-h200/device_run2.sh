#!/usr/bin/env bash
# Device run 2: stage vLLM wheel part 1 in /tmp (the machine stays warm between runs).
cp .device/validate/p1/part0 /tmp/ && ls -la /tmp/part*
