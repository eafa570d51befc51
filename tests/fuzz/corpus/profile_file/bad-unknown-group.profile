[profile]
version=1
period=250ms

[phases.0]
offset=0ms
duration=80ms
demand=45Gbps
