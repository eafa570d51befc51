# Captured by orrery-capture on gpu042 (example)
[profile]
version=1
period=250ms

[phase.0]
offset=0ms
duration=80ms
demand=45Gbps
collective=ring

[phase.1]
offset=150ms
duration=20ms
demand=10Gbps
collective=a2a

[capture]
iterations=500
period_stddev=3ms
tool=orrery-capture 0.1.0
