"""The ok/FAIL lines of the Python checkers that tests/*.sh run
(xdmf_check.py, xdmf_beam_check.py, xdmf_contact_check.py): check() prints one line a
check, as tests/lib.sh's ok and bad do, and counts the failures in
checks.fails for the checker's exit status."""

fails = 0


def check(cond, name, detail=""):
    global fails
    if cond:
        print("ok   " + name)
    else:
        fails += 1
        print("FAIL " + name + ("\n     " + str(detail)[:600] if detail else ""))
