lib_liborrery_la_SOURCES += lib/topology/topology.hpp \
	lib/topology/topology.cpp lib/topology/link_map.cpp
