"""The command line the pooling scripts share: OUT.json IN.json... [--plots DIR]."""


def pool_args(argv):
    """(out, inputs, plots) from argv without the program name; plots is None without --plots."""
    args = list(argv)
    plots = None
    if "--plots" in args:
        k = args.index("--plots")
        plots = args[k + 1]
        del args[k:k + 2]
    return args[0], args[1:], plots
