// Whether the MPI tests run with messages between nodes in steps (the caterpillar or the
// shift, engine/node_schedule.hpp): their sends then wait for their steps, and for what their
// partners send, instead of all leaving at once. Tests whose expectations differ ask.
#pragma once

#include <boost/mpi/communicator.hpp>

#include <redist/engine/node_schedule.hpp>
#include <redist/execution_options.hpp>
#include <redist/topology.hpp>

namespace redist::test {

inline bool steps_between_nodes(const boost::mpi::communicator& comm) {
  return uses_steps(ExecutionOptions{}.with_environment().inter_node_schedule,
                    node_map(comm).nodes);
}

}  // namespace redist::test
