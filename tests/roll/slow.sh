#!/bin/sh
# A decider that never answers in time: reads each request and sleeps past any timeout.
while read -r line; do sleep 30; done
