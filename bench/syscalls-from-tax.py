#!/usr/bin/env python3
"""syscalls-from-tax.py - count a real MTA's system calls per message from
two calibrations, one of them with every system call made dearer.

Usage: bench/syscalls-from-tax.py PLAIN-MODEL.json TAXED-MODEL.json > COUNTS.json

  spoolsim calibrate postfix -o plain.json
  bench/syscall-tax.py -n 8000 spoolsim/spoolsim calibrate postfix -o taxed.json
  bench/syscalls-from-tax.py plain.json taxed.json > data/postfix-syscalls.json

Under bench/syscall-tax.py each system call costs the same extra time and
nothing else changes, so a process class's extra CPU per message over the
extra price of one call (the models' machine.costs.syscall_ns, measured by
each calibration) is how many calls it makes per message, whatever the
calls are: those made after a daemon's exec, by processes that exit, and
at the rates the class runs at untraced. The same for the bare relay. Each
of base, per KiB and per extra recipient is counted from the two models'
fits. strace counts the same calls one by one, but slows the daemons as it
does, and a slower daemon does more per wake-up (docs/fidelity.md).
"""
import json
import sys


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    plain, taxed = (json.load(open(p)) for p in argv)
    for m, p in ((plain, argv[0]), (taxed, argv[1])):
        if "costs" not in m.get("machine", {}):
            print(f"syscalls-from-tax: {p} records no machine costs", file=sys.stderr)
            return 2
    price_us = (taxed["machine"]["costs"]["syscall_ns"] - plain["machine"]["costs"]["syscall_ns"]) / 1000
    if price_us < 0.5:
        print(f"syscalls-from-tax: a system call costs {price_us * 1000:.0f} ns more in the second: "
              "too little to count by (was it made under bench/syscall-tax.py?)", file=sys.stderr)
        return 2
    keys = (("base_us", "base"), ("per_kib_us", "per_kib"), ("per_rcpt_us", "per_rcpt"))

    def count(fit_plain, fit_taxed):
        return {k: round(max(0.0, (fit_taxed[f] - fit_plain[f]) / price_us), 2) for f, k in keys}

    stages = {s["name"]: s for s in plain["stages"]}
    classes, relay_plain, relay_taxed = {}, {f: 0.0 for f, _ in keys}, {f: 0.0 for f, _ in keys}
    for s in taxed["stages"]:
        if s["name"] not in stages:
            continue
        classes[s["name"]] = count(stages[s["name"]]["mta"], s["mta"])
        for f, _ in keys:
            relay_plain[f] += stages[s["name"]]["relay"][f]
            relay_taxed[f] += s["relay"][f]
    out = {
        "what": "system calls per message, by process class of the real MTA and of the bare relay: "
                "the part of the MTA's work that spoolsim relay --model makes for real (docs/fidelity.md)",
        "postfix_version": plain.get("mta_version"),
        "counted_on": plain.get("measured_on"),
        "method": "bench/syscalls-from-tax.py: the CPU per message of each class with every system "
                  f"call {price_us:.2f} us dearer (bench/syscall-tax.py) less without, over "
                  f"{price_us:.2f} us; calibrations of {plain.get('date')} and {taxed.get('date')}",
        "classes": classes,
        "relay": count(relay_plain, relay_taxed),
    }
    json.dump(out, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
