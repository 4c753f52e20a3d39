#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""gen_man.py: the man pages of `mpilens` and of each verb, made from their --help text at
build time (so that the two never drift): mpilens.1 and mpilens-VERB.1 in OUT_DIR/man1.

    gen_man.py MPILENS_BINARY OUT_DIR VERSION
"""
import os
import re
import subprocess
import sys

VERBS = ["run", "modules", "report", "matrix", "place", "analyze", "export", "recover",
         "diff", "top", "tune", "site", "scaling"]


def roff_text(line):
    """A line of --help as roff text: backslashes doubled, a leading dot or quote kept."""
    line = line.replace("\\", "\\e")
    return "\\&" + line if line.startswith((".", "'")) else line


def page(binary, verb, version):
    args = [binary] + ([verb] if verb else []) + ["--help"]
    text = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    lines = text.rstrip("\n").split("\n")
    usage = []
    while lines and (lines[0].startswith("usage:") or
                     (usage and re.match(r"^ +mpilens ", lines[0]))):
        usage.append(lines.pop(0))
    rest = lines
    while rest and not rest[0].strip():
        rest = rest[1:]
    paragraph = " ".join(l.strip() for l in rest[:rest.index("")] if rest) \
        if "" in rest else " ".join(l.strip() for l in rest)
    summary = re.split(r"(?<=[a-z)])[.:] ", paragraph + " ")[0].strip().rstrip(".:")
    name = f"mpilens-{verb}" if verb else "mpilens"
    out = [f'.TH {name.upper()} 1 "" "mpilens {version}" "mpilens manual"',
           ".SH NAME", f"{name} \\- {roff_text(summary[0].lower() + summary[1:])}",
           ".SH SYNOPSIS", ".nf"]
    out += [roff_text(re.sub(r"^(usage:)? +", "", u)) for u in usage]
    out += [".fi", ".SH DESCRIPTION", ".nf"]
    out += [roff_text(l) for l in rest]
    out += [".fi", ".SH SEE ALSO"]
    others = [f"mpilens-{v}" for v in VERBS if v != verb]
    out.append(", ".join(f"\\fB{o}\\fR(1)" for o in (["mpilens"] if verb else []) + others))
    return name, "\n".join(out) + "\n"


def main():
    binary, out_dir, version = sys.argv[1], sys.argv[2], sys.argv[3]
    man1 = os.path.join(out_dir, "man1")
    os.makedirs(man1, exist_ok=True)
    for verb in [None] + VERBS:
        name, text = page(binary, verb, version)
        with open(os.path.join(man1, name + ".1"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
