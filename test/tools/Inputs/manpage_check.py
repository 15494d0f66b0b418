"""Checks that docs/layoutc.1 names every command and every option of the
driver's command table (as `layoutc help` and `layoutc help CMD` print it)."""
import re
import subprocess
import sys

man = open(sys.argv[1]).read().replace("\\-", "-").replace("\\fB", "").replace("\\fR", "").replace("\\fI", "")
usage = subprocess.run(["layoutc", "help"], capture_output=True, text=True, check=True).stdout
cmds = re.findall(r"^  (\S+) ", usage.split("commands:")[1], re.M)
missing = []
for c in cmds:
    if not re.search(r"(^|[\s\"])" + re.escape(c) + r"\b", man, re.M):
        missing.append("command " + c)
    help_text = subprocess.run(["layoutc", "help", c], capture_output=True, text=True, check=True).stdout
    for opt in re.findall(r"^  (-[-\w]+)", help_text, re.M):
        if opt not in man:
            missing.append("option %s of %s" % (opt, c))
print("%d commands checked" % len(cmds))
if missing:
    print("docs/layoutc.1 does not mention: " + ", ".join(missing))
    sys.exit(1)
