[profile]
version=1
period=250ms

[phase.0]
offset=0ms
duration=80ms
demand=45Gbps

[phase.2]
offset=100ms
duration=80ms
demand=45Gbps
