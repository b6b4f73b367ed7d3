#!/usr/bin/python3
"""Generate the bad-input corpus tests/bad_input/cases/*.cases (docs/testing.md "Bad-input corpus").

    /usr/bin/python3 scripts/gen_bad_input.py --lievi build/release/apps/lievi/lievi

The key cases come from the schemas (`lievi schema TYPE`): every key with a value of a wrong type, a non-finite
number, a value out of its range, an unknown enum word, an empty string; every required key left out; an
unknown key and a misspelt key in every section, an unknown section; the same bad values through `--set`.
Each key is set in a small valid base scenario of its model type in which it applies (checked: every base
validates with exit 0). The command-line cases (flags, files, --set syntax, --paths, --out, subcommands) are
listed below by hand. Every case expects exit 2 and message fragments chosen to survive rewording: the key (or
flag) and a phrase of what is allowed, never a number rendering. Cases that hit a defect of issue 22 still being
fixed are marked `known-defect` (KNOWN_DEFECTS below) and skipped by the runner until the lead removes the mark.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

# ------------------------------------------------------------------------------------------------------------
# Base scenarios: sections -> {leaf: TOML literal}; array tables as lists of such dicts. Small and fast.
# ------------------------------------------------------------------------------------------------------------
I6 = "[" + ", ".join("[" + ", ".join("1.0" if i == j else "0.0" for j in range(6)) + "]" for i in range(6)) + "]"
BEAM_MOTION = "t,x,y,z,qw,qx,qy,qz\n0,0,0,0,1,0,0,0\n1,0,0,0.1,1,0,0,0\n"  # node 0 of the base beam
BEAM_MOTION_RIGHT = "t,x,y,z,qw,qx,qy,qz\n0,1,0,0,1,0,0,0\n1,1,0,0.1,1,0,0,0\n"  # its node 4
BEAM_INITIAL = "x,y,z,qw,qx,qy,qz\n" + "".join(f"{0.25 * j},0,0,1,0,0,0\n" for j in range(5))
WAVE_INITIAL = "s,phi\n" + "".join(f"{(j + 0.5) / 8},0.0\n" for j in range(8))
STRING_INITIAL = "x,y,z\n" + "".join(f"{1.1 * j / 8},0.0,0.0\n" for j in range(9))  # the base string's 9 nodes

BASES = {
    "rigid_body": {
        "model": {"type": '"rigid_body"', "inertia": "[1.0, 2.0, 3.0]"},
        "initial": {"M": "[1.0, 0.5, 0.0]"},
        "integrator": {"method": '"ddb"', "dt": "0.1", "t_end": "1.0"},
        "output": {"plots": "false"},
    },
    "wave": {
        "model": {"type": '"wave"'},
        "grid": {"J": "8"},
        "initial": {"shape": '"cosine"'},
        "integrator": {"dt": "0.01", "t_end": "0.1"},
        "output": {"plots": "false"},
    },
    "beam": {
        "model": {"type": '"beam"', "a": "0.1"},
        "grid": {"J": "4"},
        "integrator": {"dt": "1e-3", "t_end": "1e-2"},
        "output": {"plots": "false"},
    },
    "lagrangian": {
        "model": {"type": '"lagrangian"', "system": '"pendulum"'},
        "initial": {"q": "[0.5]"},
        "integrator": {"dt": "0.01", "t_end": "0.1"},
        "output": {"plots": "false"},
    },
    "kirchhoff": {
        "model": {"type": '"kirchhoff"', "inertia": "[1.0, 1.4, 0.5]", "mass": "1.0", "alpha_rot": "0.5"},
        "initial": {"Pi": "[0.3, 0.1, 0.8]", "P": "[0.5, 0.4, 0.2]"},
        "integrator": {"method": '"ddb"', "dt": "0.1", "t_end": "1.0"},
        "output": {"plots": "false"},
    },
    "lie_group": {
        "model": {"type": '"lie_group"', "system": '"heavy_top"', "inertia": "[1.0, 1.0, 0.5]"},
        "initial": {"omega": "[0.0, 0.0, 10.0]"},
        "integrator": {"method": '"del"', "dt": "0.01", "t_end": "0.1"},
        "output": {"plots": "false"},
    },
    "string": {
        "model": {"type": '"string"'},
        "grid": {"J": "8"},
        "integrator": {"dt": "0.01", "t_end": "0.1"},
        "output": {"plots": "false"},
    },
}

# Changes of the base in which a key applies: {section: {leaf: literal or None (remove)}}, array tables as
# "[[name]]": [tables], and "files": {name: content}.
CONTEXTS = {
    "rigid_body": [
        (r"^model\.K$", {"model": {"alpha": None}}),
        (r"^integrator\.h$", {"integrator": {"dt": None, "h": "0.1"}}),
        (r"^initial\.omega$", {"initial": {"M": None, "omega": "[1.0, 0.5, 0.0]"}}),
    ],
    "wave": [
        (r"^initial\.(center|width)$", {"initial": {"shape": '"gaussian"'}}),
        (r"^initial\.file$", {"initial": {"shape": '"file"', "file": '"init.csv"'}, "files": {"init.csv": WAVE_INITIAL}}),
        (r"^noise\.(theta|seed|path|base_dt|truncate)$", {"noise": {"mode": '"common"', "theta": "0.1"}}),
        (r"^noise\.modes$", {"noise": {"mode": '"modes"', "theta": "0.1", "modes": "[[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]"}}),
        (r"^noise\.cosine_modes$", {"noise": {"mode": '"modes"', "theta": "0.1", "cosine_modes": "2"}}),
        (r"^integrator\.(fraction|queue)$", {"integrator": {"method": '"avi"'}}),
        (r"^regions\.", {"integrator": {"method": '"avi"'}, "[[regions]]": [{"s_range": "[0.0, 0.5]", "refine": "2"}]}),
    ],
    "beam": [
        (r"^model\.r$", {"model": {"a": None, "section": '"circle"', "r": "0.05"}}),
        (r"^model\.(A|J1|J2|J3)$", {"model": {"a": None, "section": '"general"', "A": "0.01", "J1": "2e-5", "J2": "1e-5", "J3": "1e-5"}}),
        (r"^model\.(K|P)$", {"model": {"a": None, "section": '"matrix"', "K": I6, "P": I6}}),
        (r"^regions\.r$", {"model": {"a": None, "section": '"circle"', "r": "0.05"}, "[[regions]]": [{"s_range": "[0.0, 0.5]", "r": "0.06"}]}),
        (r"^regions\.(A|J1|J2|J3)$", {"model": {"a": None, "section": '"general"', "A": "0.01", "J1": "2e-5", "J2": "1e-5", "J3": "1e-5"},
                                     "[[regions]]": [{"s_range": "[0.0, 0.5]", "A": "0.02"}]}),
        (r"^regions\.", {"[[regions]]": [{"s_range": "[0.0, 0.5]", "E": "2.0"}]}),
        (r"^bc\.shift$", {"bc": {"left": '"periodic"', "right": '"periodic"'}}),
        (r"^bc\.left_motion$", {"bc": {"left": '"prescribed"', "left_motion": '"motion.csv"'}, "files": {"motion.csv": BEAM_MOTION}}),
        (r"^bc\.right_motion$", {"bc": {"right": '"prescribed"', "right_motion": '"motion.csv"'}, "files": {"motion.csv": BEAM_MOTION_RIGHT}}),
        (r"^initial\.(radius|arc_start)$", {"initial": {"shape": '"arc"'}}),
        (r"^initial\.file$", {"initial": {"shape": '"file"', "file": '"init.csv"'}, "files": {"init.csv": BEAM_INITIAL}}),
        (r"^loads\.(times|factors)$", {"[[loads]]": [{"node": "0", "wrench": "[0.0, 0.0, 0.0, 0.0, 0.0, 1.0]", "times": "[0.0, 1.0]", "factors": "[0.0, 1.0]"}]}),
        (r"^loads\.", {"[[loads]]": [{"node": "0", "wrench": "[0.0, 0.0, 0.0, 0.0, 0.0, 1.0]"}]}),
        (r"^distributed_loads\.(times|factors)$", {"[[distributed_loads]]": [{"wrench": "[0.0, 0.0, 0.0, 0.0, 0.0, 1.0]", "times": "[0.0, 1.0]", "factors": "[0.0, 1.0]"}]}),
        (r"^distributed_loads\.", {"[[distributed_loads]]": [{"wrench": "[0.0, 0.0, 0.0, 0.0, 0.0, 1.0]"}]}),
        (r"^noise\.(theta|seed|path|base_dt|truncate)$", {"noise": {"mode": '"common"', "theta": "[0.0, 0.0, 0.0, 0.0, 0.0, 0.01]"}}),
        (r"^noise\.modes\.values$", {"noise": {"mode": '"modes"'}, "[[noise.modes]]": [{"theta": "[0.0, 0.0, 0.0, 0.0, 0.0, 0.01]", "values": "[1.0, 1.0, 1.0, 1.0, 1.0]"}]}),
        (r"^noise\.modes\.", {"noise": {"mode": '"modes"'}, "[[noise.modes]]": [{"theta": "[0.0, 0.0, 0.0, 0.0, 0.0, 0.01]", "profile": '"cos"', "wavenumber": "1"}]}),
    ],
    "lagrangian": [
        (r"^model\.(masses|lengths)$", {"model": {"system": '"double_pendulum"'}, "initial": {"q": "[0.5, 0.2]"}}),
        (r"^model\.mu$", {"model": {"system": '"kepler"'}, "initial": {"q": "[1.0, 0.0]", "qdot": "[0.0, 1.0]"}}),
        (r"^model\.(stiffness|damping|force_amplitude|force_frequency)$", {"model": {"system": '"oscillator"'}}),
        (r"^model\.(inertia|offset)$", {"model": {"system": '"chaplygin_sleigh"'}, "initial": {"q": "[0.0, 0.0, 0.3]"}}),
        (r"^model\.(radius|inertias)$", {"model": {"system": '"vertical_disk"'}, "initial": {"q": "[0.0, 0.0, 0.0, 0.2]"}}),
        (r"^integrator\.(constraints|drift_tol)$", {"model": {"system": '"spherical_pendulum"'}, "initial": {"q": "[0.0, 0.6, -0.8]", "qdot": "[0.0, 0.0, 0.0]"}}),
    ],
    "kirchhoff": [
        (r"^model\.(ellipsoid|density|fluid_density)$", {"model": {"inertia": None, "mass": None, "ellipsoid": "[2.0, 1.0, 0.8]"}}),
        (r"^initial\.(Omega|V)$", {"initial": {"Pi": None, "P": None, "Omega": "[0.3, 0.4, 0.2]", "V": "[0.2, 0.5, 0.1]"}}),
        (r"^integrator\.symmetric_processing$", {"integrator": {"method": '"ddb-symmetric"'}}),
    ],
    "lie_group": [
        (r"^initial\.Pi$", {"initial": {"omega": None, "Pi": "[0.0, 0.0, 5.0]"}}),
        (r"^(model\.spring_(stiffness|point)|initial\.(position|velocity))$", {"model": {"system": '"floating_body"'}}),
    ],
    "string": [
        (r"^initial\.width$", {"initial": {"shape": '"gaussian"'}}),
        (r"^initial\.file$", {"initial": {"shape": '"file"', "file": '"init.csv"'}, "files": {"init.csv": STRING_INITIAL}}),
        (r"^regions\.dt$", {"[[regions]]": [{"s_range": "[0.0, 0.5]", "refine": "2", "dt": "0.005"}]}),
        (r"^regions\.", {"[[regions]]": [{"s_range": "[0.0, 0.5]", "refine": "2"}]}),
    ],
}

# Cases that crash, hang, succeed wrongly or refuse badly (known defects), skipped with the reason given.
# name -> the issue item. The runner skips them with this reason; remove a line once its fix is merged.
KNOWN_DEFECTS = {}  # every defect of issue 22 the corpus names is fixed; a new one goes here with its reason


def parse_schema(markdown):
    """The rows of a `lievi schema TYPE` table: dicts with key, type, requirement, default, unit, allowed."""
    rows = []
    for line in markdown.splitlines():
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        key = cells[0].strip("`")
        rows.append({"key": key, "type": cells[1], "requirement": cells[2], "default": cells[3], "unit": cells[4],
                     "allowed": cells[5].replace("\\|", "|")})
    return rows


def apply(base, change):
    """A deep copy of base with a context change applied."""
    s = {sec: dict(v) if isinstance(v, dict) else [dict(t) for t in v] for sec, v in base.items()}
    files = {}
    for sec, v in change.items():
        if sec == "files":
            files.update(v)
        elif sec.startswith("[["):
            s[sec] = [dict(t) for t in v]
        else:
            d = s.setdefault(sec, {})
            for leaf, lit in v.items():
                if lit is None:
                    d.pop(leaf, None)
                else:
                    d[leaf] = lit
    return s, files


def render(s):
    out = []
    for sec, v in s.items():
        if sec.startswith("[["):
            for t in v:
                out.append(sec)
                out += [f"{leaf} = {lit}" for leaf, lit in t.items()]
                out.append("")
        else:
            out.append(f"[{sec}]")
            out += [f"{leaf} = {lit}" for leaf, lit in v.items()]
            out.append("")
    return "\n".join(out)


def context_for(model, key):
    for pattern, change in CONTEXTS[model]:
        if re.search(pattern, key):
            return change
    return {}


def set_key(s, key, literal):
    """Set key (schema form: section.leaf or array.leaf) to literal (None: remove) in the right table."""
    for arr in [k for k in s if k.startswith("[[")]:
        name = arr[2:-2]
        if key.startswith(name + ".") and "." not in key[len(name) + 1:]:
            t = s[arr][0]
            leaf = key[len(name) + 1:]
            if literal is None:
                t.pop(leaf, None)
            else:
                t[leaf] = literal
            return
    sec, leaf = key.split(".", 1)
    if literal is None:
        s.get(sec, {}).pop(leaf, None)
    else:
        s.setdefault(sec, {})[leaf] = literal


def shown_key(s, key):
    """The key as messages name it: array-table members with their index (loads[0].node)."""
    for arr in [k for k in s if k.startswith("[[")]:
        name = arr[2:-2]
        if key.startswith(name + ".") and "." not in key[len(name) + 1:]:
            return f"{name}[0].{key[len(name) + 1:]}"
    return key


WRONG_TYPE = {
    "a number": ['"1.0"', "true", "[1.0]"],
    "an integer": ["1.5", '"3"', "true"],
    "a string": ["1", "true", '["x"]'],
    "a boolean (true or false)": ['"true"', "1"],
    "an array of 3 numbers": ["1.0", "[1.0, 2.0]", '["a", "b", "c"]', "[1.0, 2.0, 3.0, 4.0]"],
    "an array of 3 numbers or a 3x3 matrix": ["1.0", "[1.0, 2.0]", "[[1.0, 0.0], [0.0, 1.0]]"],
    "a 3x3 matrix (array of 3 arrays of 3 numbers)": ["[1.0, 2.0, 3.0]", "[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]", '"I"'],
    "an array of 6 numbers": ["[1.0, 2.0, 3.0]", "1.0", '"x"'],
    "a 6x6 matrix (array of 6 arrays of 6 numbers)": ["[[1.0]]", "1.0"],
    "an array of numbers": ["1.0", '["a"]', "[true]"],
    "an array of integers": ["1", "[1.5]", '["a"]'],
    "an array of arrays of numbers": ["[1.0, 2.0]", "1.0"],
    "an integer or a string": ["1.5", "true", "[0]"],
}
# The words of a wrong-type message: the expected type's name as the schema prints it.
TYPE_PHRASE = {
    "a number": "number", "an integer": "integer", "a string": "string", "a boolean (true or false)": "boolean",
    "an array of 3 numbers": "numbers", "an array of 3 numbers or a 3x3 matrix": "3x3",
    "a 3x3 matrix (array of 3 arrays of 3 numbers)": "3x3", "an array of 6 numbers": "6 finite numbers",
    "a 6x6 matrix (array of 6 arrays of 6 numbers)": "6x6", "an array of numbers": "numbers",
    "an array of integers": "array of integers", "an array of arrays of numbers": "arrays of",
    "an integer or a string": "allowed",
}
NONFINITE_VECTOR = {
    "an array of 3 numbers": "[nan, 0.0, 0.0]", "an array of 6 numbers": "[0.0, 0.0, inf, 0.0, 0.0, 0.0]",
    "an array of numbers": "[0.0, nan]",
}


def range_values(row):
    """(literal, phrase) pairs out of the allowed range of a number or integer key."""
    a, t = row["allowed"], row["type"]
    integer = t == "an integer"
    out = []
    m = re.match(r"^(>=?) (-?[0-9.]+)", a)
    if m and t in ("a number", "an integer"):
        op, bound = m.group(1), float(m.group(2))
        phrase = f"{op} {m.group(2)}"
        below = bound - 1 if integer else (bound if op == ">" else bound - 1.0)
        out.append((str(int(below)) if integer else repr(float(below)), phrase))
        if not integer and op == ">" and bound == 0:
            out.append(("-1.0", phrase))
    m = re.match(r"^(-?\d+) \.\.\. (\d+)$", a)
    if m and integer:
        lo, hi = int(m.group(1)), int(m.group(2))
        out.append((str(lo - 1), "must be"))  # below: ">= lo" or "in [lo, hi]" (both name what is allowed)
        out.append((str(hi + 1), m.group(2)))
    if a.startswith("(-1, 0.5)"):
        out += [("0.5", "0.5"), ("-1.0", "-1")]
    return out


def key_cases(model, rows, base):
    cases = []
    for row in rows:
        key = row["key"]
        if key == "model.type" or row["requirement"].startswith("alias"):
            continue
        s0, files = apply(base, context_for(model, key))
        shown = shown_key(s0, key)
        t = row["type"]

        in_table = shown != key

        def add(name, literal, expect, via_set=False, remove=False):
            if via_set and in_table:
                return
            s, f = apply(s0, {})
            if remove:
                set_key(s, key, None)
            elif not via_set:
                set_key(s, key, literal)
            args = "validate scenario.toml"
            if via_set:
                args += " --set " + shell_quote(f"{key}={literal}")
            cases.append({"name": f"{model}.{key}.{name}", "args": args, "expect": expect,
                          "files": dict(f, **files, **{"scenario.toml": render(s)})})

        for i, lit in enumerate(WRONG_TYPE.get(t, [])):
            add(f"wrong_type_{i}", lit, [shown, TYPE_PHRASE[t]])
        if t == "a number":
            for lit in ("nan", "inf", "-inf"):
                add(f"nonfinite_{lit.strip('-') + ('_neg' if lit.startswith('-') else '')}", lit, [shown, "finite"])
        if t in NONFINITE_VECTOR and "finite" in row["allowed"]:
            add("nonfinite", NONFINITE_VECTOR[t], [shown, "finite"])
        for i, (lit, phrase) in enumerate(range_values(row)):
            add(f"out_of_range_{i}", lit, [shown, phrase])
        if t in ("an integer",):
            add("huge", "9223372036854775807", [shown])
        if t == "a string":
            words = [w.strip() for w in row["allowed"].split(",")]
            if len(words) > 1 and all(re.fullmatch(r"[a-z0-9_-]+", w) for w in words):
                add("unknown_word", '"nonsense"', [shown, words[0], words[-1]])
                add("empty", '""', [shown])
                add("set_unknown_word", "nonsense", [key, "--set", words[-1]], via_set=True)
        if t in ("a number", "an integer"):
            add("set_not_a_number", "abc", [key, "--set"], via_set=True)
        if t == "a boolean (true or false)":
            add("set_not_a_boolean", "yes", [key, "--set"], via_set=True)
        if t.startswith("an array of 3"):
            add("set_bad_array", "[1,2", [key, "--set"], via_set=True)
        if row["requirement"] == "required" or row["requirement"].startswith("required ("):
            add("missing", None, [key, "missing"], remove=True)
    return cases


def section_cases(model, rows, base):
    cases = []
    s0, _ = apply(base, {})
    sections = []
    for row in rows:
        sec = row["key"].split(".")[0]
        if sec not in sections:
            sections.append(sec)
    for sec in sections:
        leaves = [r["key"].split(".", 1)[1] for r in rows if r["key"].startswith(sec + ".") and "." not in r["key"][len(sec) + 1:]]
        if not leaves:
            continue
        s, files = apply(base, context_for(model, f"{sec}.{leaves[0]}"))
        typo = leaves[-1] + "x"
        if f"[[{sec}]]" in s:  # an array table: the keys of its first table
            t, shown = s[f"[[{sec}]]"][0], f"{sec}[0]"
        else:
            t, shown = s.setdefault(sec, {}), sec
        t["no_such_key"] = "1"
        cases.append({"name": f"{model}.{sec}.unknown_key", "args": "validate scenario.toml",
                      "expect": [f"{shown}.no_such_key", "unknown"], "files": dict(files, **{"scenario.toml": render(s)})})
        del t["no_such_key"]
        t[typo] = "1"
        cases.append({"name": f"{model}.{sec}.misspelt_key", "args": "validate scenario.toml",
                      "expect": [f"{shown}.{typo}", leaves[-1]], "files": dict(files, **{"scenario.toml": render(s)})})
        if shown != sec:
            s, files = apply(base, context_for(model, f"{sec}.{leaves[0]}"))
            cases.append({"name": f"{model}.{sec}.set_table_key", "args": f"validate scenario.toml --set {sec}.{leaves[0]}=1",
                          "expect": [f"{sec}.{leaves[0]}", "--set", f"[[{sec}]]"], "files": dict(files, **{"scenario.toml": render(s)})})
            continue
        s, _ = apply(s0, {})
        cases.append({"name": f"{model}.{sec}.set_unknown_key", "args": "validate scenario.toml --set " + shell_quote(f"{sec}.no_such_key=1"),
                      "expect": [f"{sec}.no_such_key", "unknown"], "files": {"scenario.toml": render(s)}})
    s, _ = apply(s0, {})
    s["no_such_section"] = {"x": "1"}
    cases.append({"name": f"{model}.unknown_section", "args": "validate scenario.toml",
                  "expect": ["no_such_section", "unknown"], "files": {"scenario.toml": render(s)}})
    text = render(s0).replace("[model]", "model = 1\n[not_model]", 1)
    cases.append({"name": f"{model}.section_not_a_table", "args": "validate scenario.toml --set model.type=" + model,
                  "expect": ["model"], "files": {"scenario.toml": text}})
    # bad input to `run` writes nothing: a wrong value, an unknown key, through run with --out
    s, _ = apply(s0, {})
    s["integrator"]["t_end"] = "-1.0"
    cases.append({"name": f"{model}.run_refuses_before_writing", "args": "run scenario.toml --out out",
                  "expect": ["integrator.t_end", "> 0"], "files": {"scenario.toml": render(s)}})
    return cases


CONTEXTS_ARRAYS = {}


def shell_quote(s):
    return "'" + s.replace("'", "'\"'\"'") + "'" if re.search(r"[^A-Za-z0-9_./=:,+-]", s) else s


# ------------------------------------------------------------------------------------------------------------
# Command-line cases (hand-written). files: the scenario is a small valid one unless given.
# ------------------------------------------------------------------------------------------------------------
def cli_cases():
    good = render(BASES["rigid_body"])
    wave = render(BASES["wave"])
    c = []

    def add(name, args, expect, files=None, exit=2, writes=False):
        f = {"scenario.toml": good} if files is None else files
        c.append({"name": name, "args": args, "expect": expect, "files": f, "exit": exit, "writes": writes})

    # program and subcommands
    add("cli.no_subcommand", "", ["subcommand"])
    add("cli.unknown_subcommand", "frobnicate scenario.toml", ["frobnicate"])
    add("cli.unknown_flag_top", "--frobnicate", ["--frobnicate"])
    for sub in ("run", "validate", "convergence"):
        more = " --param integrator.dt --values 0.1,0.05" if sub == "convergence" else ""
        add(f"cli.{sub}.unknown_flag", f"{sub} scenario.toml{more} --frobnicate", ["--frobnicate"])
        add(f"cli.{sub}.missing_file_argument", f"{sub}", ["FILE"])
    add("cli.validate.two_files", "validate scenario.toml other.toml", ["other.toml"])
    add("cli.methods.extra_argument", "methods extra", ["extra"])
    add("cli.schema.unknown_type", "schema nonsense", ["nonsense", "rigid_body"])
    add("cli.schema.empty_type", "schema ''", ["rigid_body"], exit=0, writes=True) if False else None
    # scenario files
    for sub in ("run", "validate"):
        add(f"cli.{sub}.missing_file", f"{sub} nonexistent.toml", ["nonexistent.toml"])
        add(f"cli.{sub}.folder_as_file", f"{sub} .", ["."], files={})
        add(f"cli.{sub}.empty_file", f"{sub} empty.toml", ["empty.toml", "model.type"], files={"empty.toml": ""})
    add("cli.validate.empty_file_name", "validate ''", ["scenario"], files={})
    add("cli.validate.dev_null", "validate /dev/null", ["/dev/null", "regular file"], files={})
    add("cli.validate.dev_zero", "validate /dev/zero", ["/dev/zero"], files={})
    add("cli.validate.binary_garbage", "validate garbage.toml", ["garbage.toml", "TOML"],
        files={"garbage.toml": "\x01\x02\x03\x7f[[[\n"})
    add("cli.validate.toml_syntax_error", "validate bad.toml", ["bad.toml", "line 2"],
        files={"bad.toml": "[model]\ntype = = \"rigid_body\"\n"})
    add("cli.validate.unterminated_string", "validate bad.toml", ["bad.toml", "TOML"],
        files={"bad.toml": "[model]\ntype = \"rigid_body\n"})
    add("cli.validate.duplicate_key", "validate dup.toml", ["dup.toml", "TOML"],
        files={"dup.toml": good.replace("[model]\n", "[model]\ntype = \"wave\"\n", 1)})
    add("cli.validate.duplicate_table", "validate dup.toml", ["dup.toml", "TOML"], files={"dup.toml": good + "\n[model]\n"})
    add("cli.validate.model_type_missing", "validate s.toml", ["model.type", "rigid_body"],
        files={"s.toml": good.replace('type = "rigid_body"\n', "")})
    add("cli.validate.model_type_unknown", "validate s.toml", ["model.type", "rigid_body", "lagrangian"],
        files={"s.toml": good.replace('"rigid_body"', '"nonsense"', 1)})
    add("cli.validate.model_type_number", "validate s.toml", ["model.type"],
        files={"s.toml": good.replace('"rigid_body"', "3", 1)})
    add("cli.validate.deep_dotted_key", "validate deep.toml", ["deep.toml"],
        files={"deep.toml": "model" + ".a" * 100000 + " = 1\n"})
    add("cli.validate.deep_nested_array", "validate deep.toml", ["deep.toml"],
        files={"deep.toml": "x = " + "[" * 300 + "]" * 300 + "\n"})
    c.append({"name": "cli.validate.huge_value", "args": "validate big.toml", "expect": ["big.toml", "limit"],
              "files": {"big.toml": '[model]\ntype = "{x*52428800}"\n'}, "max_stderr": 4000})
    # --set syntax
    add("cli.set.no_equals", "validate scenario.toml --set integrator.dt", ["--set", "key=value"])
    add("cli.set.empty_key", "validate scenario.toml --set =0.1", ["--set"])
    add("cli.set.empty_value", "validate scenario.toml --set integrator.dt=", ["--set", "integrator.dt"])
    add("cli.set.unknown_key", "validate scenario.toml --set integrator.nonsense=1", ["--set", "integrator.nonsense"])
    add("cli.set.unknown_section", "validate scenario.toml --set nonsense.x=1", ["--set", "nonsense.x"])
    add("cli.set.twice", "validate scenario.toml --set integrator.dt=0.1 --set integrator.dt=0.2", ["--set", "integrator.dt", "twice"])
    add("cli.set.missing_value_argument", "validate scenario.toml --set", ["--set"])
    add("cli.set.array_for_number", "validate scenario.toml --set 'integrator.dt=[1,2]'", ["--set", "integrator.dt"])
    add("cli.set.unterminated_array", "validate scenario.toml --set 'initial.M=[1,2,3'", ["--set", "initial.M"])
    add("cli.set.deep_array", "validate scenario.toml --set 'initial.M=" + "[" * 30000 + "]" * 30000 + "'", ["--set", "initial.M"])
    add("cli.set.model_type_unknown", "validate scenario.toml --set model.type=nonsense", ["model.type", "rigid_body"])
    add("cli.set.table_section", "validate " + "b.toml" + " --set 'loads.node=1'", ["loads"], files={"b.toml": render(BASES["beam"])})
    add("cli.set.bool_word", "validate scenario.toml --set output.plots=yes", ["--set", "output.plots"])
    # defects named by issue 22 (known-defect until fixed)
    beam = BASES["beam"]
    s, _ = apply(BASES["rigid_body"], {"output": {"every": "2.0"}})
    add("cli.issue.every_integral_float", "validate s.toml", ["output.every", "integer"], files={"s.toml": render(s)})
    # a direction whose norm overflows is normalised with a scaled norm (no longer [0, 0, 0]); parallel to a
    # normal of the same size it is refused
    s, _ = apply(beam, {"initial": {"direction": "[1e308, 1e308, 1e308]", "normal": "[1e308, 1e308, 1e308]"}})
    add("cli.issue.direction_overflow", "validate s.toml", ["initial."], files={"s.toml": render(s)})
    s, _ = apply(beam, {"bc": {"left": '"prescribed"', "left_motion": '""'}})
    add("cli.issue.empty_left_motion", "run s.toml --out out", ["bc.left_motion"], files={"s.toml": render(s)})
    # --paths
    add("cli.paths.zero", "run w.toml --paths 0 --out out", ["--paths"], files={"w.toml": wave})
    add("cli.paths.negative", "run w.toml --paths -1 --out out", ["--paths"], files={"w.toml": wave})
    add("cli.paths.not_a_number", "run w.toml --paths many --out out", ["--paths"], files={"w.toml": wave})
    add("cli.paths.float", "run w.toml --paths 1.5 --out out", ["--paths"], files={"w.toml": wave})
    noisy, _ = apply(BASES["wave"], {"noise": {"mode": '"common"', "theta": "0.1"}})
    add("cli.paths.huge", "run w.toml --paths 4294967296 --out out", ["--paths"], files={"w.toml": render(noisy)})
    add("cli.paths.very_huge", "run w.toml --paths 99999999999999999999999 --out out", ["--paths"], files={"w.toml": wave})
    add("cli.paths.rigid_body", "run scenario.toml --paths 2 --out out", ["--paths", "noise"])
    add("cli.paths.lagrangian", "run l.toml --paths 2 --out out", ["--paths", "noise"], files={"l.toml": render(BASES["lagrangian"])})
    add("cli.paths.missing_value", "run w.toml --out out --paths", ["--paths"], files={"w.toml": wave})
    # --out
    add("cli.out.empty", "run scenario.toml --out ''", ["--out"])
    add("cli.out.proc", "run scenario.toml --out /proc/lievi-x", ["/proc/lievi-x"])
    add("cli.out.is_a_file", "run scenario.toml --out scenario.toml", ["scenario.toml"])
    add("cli.out.non_empty_without_force", "run scenario.toml --out full", ["full", "--force"],
        files={"scenario.toml": good, "full/keep.txt": "user data\n"})
    add("cli.out.force_foreign_folder", "run scenario.toml --out full --force", ["full", "--force"],
        files={"scenario.toml": good, "full/keep.txt": "user data\n"})
    add("cli.out.force_scenario_folder", "run sub/scenario.toml --out sub --force", ["sub"],
        files={"sub/scenario.toml": good})
    add("cli.out.force_current_folder", "run scenario.toml --out . --force", ["--out"])
    add("cli.out.missing_value", "run scenario.toml --out", ["--out"])
    add("cli.out.parent_is_a_file", "run scenario.toml --out scenario.toml/sub", ["scenario.toml"])
    # convergence
    add("cli.convergence.missing_param", "convergence scenario.toml --values 0.1,0.05", ["--param"])
    add("cli.convergence.unknown_param", "convergence scenario.toml --param integrator.nonsense --values 0.1,0.05 --out out", ["integrator.nonsense"])
    add("cli.convergence.one_value", "convergence scenario.toml --param integrator.dt --values 0.1 --out out", ["--values"])
    add("cli.convergence.negative_value", "convergence scenario.toml --param integrator.dt --values 0.1,-0.05 --out out", ["--values"])
    add("cli.convergence.not_a_number", "convergence scenario.toml --param integrator.dt --values 0.1,abc --out out", ["--values"])
    add("cli.convergence.duplicate_values", "convergence scenario.toml --param integrator.dt --values 0.1,0.1 --out out", ["--values"])
    add("cli.convergence.bad_reference", "convergence scenario.toml --param integrator.dt --values 0.1,0.05 --reference nonsense --out out", ["--reference", "taylor"])
    add("cli.convergence.wave_model", "convergence w.toml --param integrator.dt --values 0.01,0.005 --out out", ["wave"], files={"w.toml": wave})
    add("cli.convergence.beam_model", "convergence b.toml --param integrator.dt --values 1e-3,5e-4 --out out", ["beam"], files={"b.toml": render(BASES["beam"])})
    add("cli.convergence.string_param", "convergence scenario.toml --param integrator.method --values 0.1,0.05 --out out", ["integrator.method"])
    return [x for x in c if x is not None]


def shell_split_check(cases):
    names = [c["name"] for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        sys.exit(f"duplicate case names: {sorted(dup)}")


def write_group(path, cases, header):
    out = [f"# {header}", "# Generated by scripts/gen_bad_input.py from `lievi schema`; edit the script, not this file.", ""]
    for c in cases:
        out.append(f"### case {c['name']}")
        out.append(f"args: {c['args']}")
        out.append(f"exit: {c.get('exit', 2)}")
        for e in c["expect"]:
            out.append(f"expect: {e}")
        if c.get("writes"):
            out.append("writes: yes")
        if c["name"] in KNOWN_DEFECTS:
            out.append(f"known-defect: {KNOWN_DEFECTS[c['name']]}")
        if "max_stderr" in c:
            out.append(f"max-stderr: {c['max_stderr']}")
        for name, content in sorted(c["files"].items()):
            if content is None:
                continue
            out.append(f"file: {name}")
            out.append(content.rstrip("\n"))
        out.append("")
    with open(path, "w") as f:
        f.write("\n".join(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lievi", required=True, help="the built lievi program")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "tests", "bad_input", "cases"))
    ap.add_argument("--only", action="append", default=[],
                    help="regenerate only this model type's files (repeatable; the command-line cases are kept)")
    a = ap.parse_args()
    unknown_models = set(a.only) - set(BASES)
    if unknown_models:
        sys.exit(f"--only: no base scenario for {sorted(unknown_models)}; model types: {sorted(BASES)}")
    a.lievi = os.path.abspath(a.lievi)
    os.makedirs(a.out, exist_ok=True)
    total = 0
    all_names = []
    for model in BASES:  # every model type with a base scenario (and its CONTEXTS entry)
        if a.only and model not in a.only:
            continue
        md = subprocess.run([a.lievi, "schema", model], capture_output=True, text=True, check=True).stdout
        rows = parse_schema(md)
        base = BASES[model]
        # every base and context must be valid, so that a case's refusal comes from its one change
        for pattern, change in [("", {})] + CONTEXTS[model]:
            s, files = apply(base, change)
            with tempfile.TemporaryDirectory() as d:
                for n, content in dict(files, **{"scenario.toml": render(s)}).items():
                    with open(os.path.join(d, n), "w") as f:
                        f.write(content)
                r = subprocess.run([a.lievi, "validate", "scenario.toml"], cwd=d, capture_output=True, text=True)
                if r.returncode != 0:
                    sys.exit(f"base of {model} for /{pattern}/ does not validate:\n{render(s)}\n{r.stderr}")
        cases = key_cases(model, rows, base)
        write_group(os.path.join(a.out, f"{model}_keys.cases"), cases, f"{model}: every schema key with bad values")
        sc = section_cases(model, rows, base)
        write_group(os.path.join(a.out, f"{model}_sections.cases"), sc, f"{model}: unknown and misspelt keys and sections")
        total += len(cases) + len(sc)
        all_names += [c["name"] for c in cases + sc]
    if a.only:
        print(f"{total} cases written to {os.path.normpath(a.out)} for {', '.join(a.only)}")
        return
    cli = cli_cases()
    write_group(os.path.join(a.out, "cli.cases"), cli, "the command line: subcommands, flags, files, --set, --paths, --out")
    total += len(cli)
    all_names += [c["name"] for c in cli]
    shell_split_check([{"name": n} for n in all_names])
    unknown = set(KNOWN_DEFECTS) - set(all_names)
    if unknown:
        sys.exit(f"KNOWN_DEFECTS names no case: {sorted(unknown)}")
    print(f"{total} cases written to {os.path.normpath(a.out)} ({len(KNOWN_DEFECTS)} marked known-defect)")


if __name__ == "__main__":
    main()
