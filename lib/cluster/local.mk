# cluster: running jobs, their shifts, the state file (doc/orrery-state.5)
lib_liborrery_la_SOURCES += lib/cluster/cluster.hpp lib/cluster/cluster.cpp \
	lib/cluster/state_file.cpp lib/api/cluster_api.cpp
dist_man_MANS += doc/orrery-state.5
