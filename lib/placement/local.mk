# placement: node-set evaluation, candidate enumeration, ranking, shift solve
lib_liborrery_la_SOURCES += lib/placement/placement.hpp \
	lib/placement/evaluate.cpp lib/placement/candidates.cpp \
	lib/placement/rank.cpp lib/placement/solve.cpp \
	lib/api/placement_api.cpp
