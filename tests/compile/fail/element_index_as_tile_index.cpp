// EXPECT: conversion from .*ElementIndex.* to non-scalar type .*TileIndex.* requested
// An element index does not silently become a tile index.
#include <redist/index.hpp>

int main() {
  const redist::TileIndex t = redist::ElementIndex{3, 4};
  return static_cast<int>(t.m);
}
