#!/usr/bin/env bash
# Device run 5: stage vLLM wheel part 4 in /tmp (the machine stays warm between runs).
cp .device/validate/p4/part3 /tmp/ && ls -la /tmp/part*
