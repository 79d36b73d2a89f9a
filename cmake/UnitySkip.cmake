# Sources compiled on their own in a unity build (cmake/Unity.cmake), relative to the source tree.
# A new clash (two helpers of one name in anonymous namespaces of one module, say) shows up as a
# redefinition or ambiguity error in .../Unity/unity_N_cxx.cxx: add the later file here.
set(SHARDSIM_UNITY_SKIP
  # GCC's -Wsubobject-linkage: a class with a member of an anonymous-namespace type is fine in a
  # .cpp file, but warned about (an error with -Werror) once the file is #included in a batch.
  src/cli/cmd_trace.cpp
  src/trace/empirical_profile.cpp        # (and touch_probability)
  # Helpers of the same name as in another file of the module.
  src/io/report_reader.cpp               # Json
  src/io/report_writer_csv.cpp           # num
  src/io/report_writer_json.cpp          # num, timed, planned, spread_of
  src/io/report_writer_text.cpp          # kMaxGpuRows, ms, gb, duration, ...
  src/plan/peer_sync.cpp                 # kIndexBytes
  src/trace/power_sum.cpp                # kExactBelowY, kShortRange
  src/trace/synthetic_trace_source.cpp   # key
  tests/cli/determinism_test.cpp         # Workspace
  tests/cli/outputs_test.cpp             # Workspace, read
  tests/cli/plan_command_test.cpp        # kScenario, read
  tests/cli/trace_cli_test.cpp           # Workspace, scenario
  tests/cost/ring_collective_cost_test.cpp  # iota_gpus
  tests/io/scenario_overrides_test.cpp   # error_of
  tests/io/tolerances_test.cpp           # error_of
  tests/plan/planner_properties_test.cpp # key
  tests/plan/two_d_planner_test.cpp      # key
  tests/trace/recorded_trace_source_test.cpp   # fixed, uniform
  tests/trace/synthetic_trace_source_test.cpp  # table, fixed
  tests/trace/trace_stats_test.cpp       # profile_of
  tests/trace/zipf_sampler_test.cpp      # table
)
