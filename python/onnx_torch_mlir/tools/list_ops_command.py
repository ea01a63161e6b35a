"""List the ONNX operators our conversion supports: direct patterns with their
since_versions, ops converted by expanding their ONNX function body, and (with
--write) their conformance case counts per backend.
"""

HELP = "list supported ONNX operators (or write docs/supported-ops.md)"


def add_arguments(parser):
    parser.add_argument("--write", metavar="PATH", help="write the full markdown document (with case counts) to PATH")
    parser.add_argument("--all", action="store_true", help="also list operators that are not supported")


def run(args) -> int:
    from .. import supported_ops
    from .cli_support import atomic_output

    if args.write:
        with atomic_output(args.write) as stream:
            stream.write(supported_ops.markdown())
        print(f"wrote {args.write}")
        return 0
    rows = supported_ops.op_rows()
    for row in rows:
        if args.all or row["how"] != "not supported":
            domain = "" if row["domain"] == "ai.onnx" else f"{row['domain']}::"
            print(f"{domain}{row['op']:28} {row['how']}")
    supported = sum(row["how"] != "not supported" for row in rows)
    print(f"{supported} of {len(rows)} operators supported")
    return 0
