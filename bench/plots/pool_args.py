"""The command lines the plot scripts share: [ARGS...] [--plots DIR], and the pooling
scripts' OUT.json IN.json... [--plots DIR]."""


def plots_option(argv):
    """(the other arguments, DIR of --plots DIR or None) from argv without the program name."""
    args = list(argv)
    plots = None
    if "--plots" in args:
        k = args.index("--plots")
        plots = args[k + 1]
        del args[k:k + 2]
    return args, plots


def pool_args(argv):
    """(out, inputs, plots) from argv without the program name; plots is None without --plots."""
    args, plots = plots_option(argv)
    return args[0], args[1:], plots
