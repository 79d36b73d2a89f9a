# Sources compiled on their own in a unity build (cmake/Unity.cmake), relative to the source tree.
# A clash between two files of one module (two helpers of one name in anonymous namespaces, a
# class with a member of an anonymous-namespace type under GCC's -Wsubobject-linkage) shows up as
# a redefinition, ambiguity or subobject-linkage error in .../Unity/unity_N_cxx.cxx. Prefer
# fixing it to listing a file here: a file on its own parses its headers again (cmd_trace.cpp
# alone took 21 s at -O3, for CLI11; docs/performance.md, "Every file in a unity batch"). The
# fixes used so far: a name that says which file's helper it is (report_writer_csv.cpp's
# `cell`), a private header for a helper two files share (src/trace/touch_probability.hpp),
# and for tests a namespace of their own, `shardsim::<file stem>`, whose helpers hide those of
# the other files of the batch.
set(SHARDSIM_UNITY_SKIP
)
