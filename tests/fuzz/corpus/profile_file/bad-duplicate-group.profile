[profile]
version=1
period=250ms

[phase.0]
offset=0ms
duration=10ms
demand=1Gbps

[phase.0]
collective=a2a
