# Spack recipe for redist (docs/install.md): the header-only library and, with +scalapack,
# libredist_scalapack (ScaLAPACK's p?gemr2d on redist). Copy this directory into a Spack
# repository's packages/ folder.

from spack.package import *


class Redist(CMakePackage):
    """Header-only C++20 redistribution of tiled, distributed matrices between layouts
    (block-cyclic, irregular, random, ScaLAPACK and tile storage), on Boost.MPI,
    Boost.Graph, LEMON and Kokkos; optionally a drop-in ScaLAPACK p?gemr2d library."""

    # The repository has no published home yet: point `git` at your clone (a path or URL),
    # or use `spack develop redist@main` on a checkout.
    homepage = "file:///path/to/redist"
    git = "file:///path/to/redist"

    version("main", branch="main")

    variant(
        "scalapack",
        default=True,
        description="Build libredist_scalapack: Cp?gemr2d and p?gemr2d_ on redist",
    )

    depends_on("cxx", type="build")
    depends_on("c", type="build", when="+scalapack")
    depends_on("cmake@3.20:", type="build")
    depends_on("mpi")
    depends_on("boost@1.74: +mpi +graph +serialization")
    depends_on("kokkos@3.4:")
    depends_on("lemon@1.3:")  # relabel.hpp's min-cost flow (headers only)
    depends_on("scalapack", when="+scalapack")

    def cmake_args(self):
        args = [
            self.define("REDIST_BUILD_TESTS", False),
            self.define("REDIST_BUILD_EXAMPLES", False),
            self.define("REDIST_BUILD_APPS", False),
            self.define("REDIST_BUILD_BENCH", False),
            self.define("REDIST_INSTALL", True),
            self.define_from_variant("REDIST_SCALAPACK_ABI", "scalapack"),
            self.define("Kokkos_ROOT", self.spec["kokkos"].prefix),
        ]
        if self.spec.satisfies("+scalapack"):
            # The one library that holds ScaLAPACK and its BLACS.
            args.append(
                self.define("REDIST_SCALAPACK_LIBRARY", self.spec["scalapack"].libs.libraries[0])
            )
        return args

    def setup_run_environment(self, env):
        if self.spec.satisfies("+scalapack"):
            # For LD_PRELOAD into programs built against ScaLAPACK only.
            env.set(
                "REDIST_SCALAPACK_PRELOAD",
                join_path(self.prefix.lib, "libredist_scalapack.so"),
            )
