#pragma once
// Boost.Serialization of the cost model's RankLoad (cost/rank_load.hpp), so that rank 0
// gathers every rank's load whole (boost::mpi::gather) for its prediction.
#include <boost/serialization/serialization.hpp>

#include <redist/cost/rank_load.hpp>

namespace boost::serialization {

template <class Archive>
void serialize(Archive& ar, redist::NodeBytes& b, const unsigned int /*version*/) {
  ar& b.point_to_point& b.window& b.in_place& b.pushed;
}

template <class Archive>
void serialize(Archive& ar, redist::RankLoad& l, const unsigned int /*version*/) {
  ar& l.rank& l.node& l.node_ranks& l.sent& l.received& l.local& l.sent_inter_node& l
      .received_inter_node& l.messages_sent& l.messages_received& l.messages_sent_inter_node& l
      .messages_received_inter_node& l.runs_sent& l.runs_received& l.runs_local& l.sent_in_pieces& l
      .received_in_pieces& l.routes_known& l.sent_in_node& l.received_in_node& l.rings;
}

}  // namespace boost::serialization
