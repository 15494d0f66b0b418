"""Checks a `layoutc draw` SVG (or HTML) for content: one cell per element
whose text is that element's offset (as `layoutc offset --all` gives it), the
expected number of tile colors, one strip cell per place in memory, padding
hatched, and ghost cells (padding places inside a block of the grid's dims)
that each name a distinct padding place of the allocation.

usage: svg_check.py FILE TYPE TILES"""
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

path, type_, tiles = sys.argv[1], sys.argv[2], int(sys.argv[3])
text = open(path).read()
if text.startswith("<!DOCTYPE html>"):
    text = text[len("<!DOCTYPE html>"):]
root = ET.fromstring(text)
ns = "{http://www.w3.org/2000/svg}"
svg = root if root.tag == ns + "svg" else root.find(".//" + ns + "svg")
groups = svg.findall(ns + "g")
cells = [g for g in groups if "ghost" not in g.get("class").split()]
ghosts = [g for g in groups if "ghost" in g.get("class").split()]
offsets = subprocess.run(["layoutc", "offset", type_, "--all"], capture_output=True, text=True,
                         check=True).stdout.split()
# Each cell's title names its element: (i,j,...) offset N, tile T.
titles = [g.find(ns + "title").text for g in cells]
if not all(re.match(r"^\([0-9,]*\) offset [0-9]+, tile [0-9]+$", t) for t in titles):
    sys.exit("a cell title is malformed")
dims = [int(d) for d in re.match(r"tensor<((?:[0-9]+x)*)", type_).group(1).split("x")[:-1]]
seen = {}
for g, t in zip(cells, titles):
    idx = [int(i) for i in t[1:t.index(")")].split(",") if i]
    lin = 0
    for i, d in zip(idx, dims):
        lin = lin * d + i
    text = g.find(ns + "text").text
    if text != offsets[lin] or ("offset %s," % text) not in t:
        sys.exit("cell %s shows offset %s, offset --all says %s" % (idx, text, offsets[lin]))
    seen[lin] = seen.get(lin, 0) + 1
if sorted(seen) != list(range(len(offsets))) or any(v != 1 for v in seen.values()):
    sys.exit("the cells do not show every element exactly once")
colors = {g.find(ns + "rect").get("fill") for g in cells}
if len(colors) != min(tiles, 20):
    sys.exit("%d tile colors, expected %d" % (len(colors), min(tiles, 20)))
strip = [r for r in svg.findall(ns + "rect")]  # direct children: the memory strip
alloc = int([l for l in subprocess.run(["layoutc", "describe", type_], capture_output=True, text=True,
                                       check=True).stdout.splitlines() if l.startswith("alloc_elements:")][0].split()[1])
pads = sum(1 for r in strip if r.get("class") == "pad")
if len(strip) != alloc:
    sys.exit("%d strip cells for %d places" % (len(strip), alloc))
if pads != alloc - len(set(offsets)):
    sys.exit("%d padding cells, expected %d" % (pads, alloc - len(set(offsets))))
ghost_offsets = [int(g.find(ns + "text").text) for g in ghosts]
if len(set(ghost_offsets)) != len(ghost_offsets) or any(
        o < 0 or o >= alloc or str(o) in offsets for o in ghost_offsets):
    sys.exit("ghost cells %s are not distinct padding places" % ghost_offsets)
print("ok: %d cells, %d tiles, %d places, %d padding, %d ghosts" % (len(cells), len(colors), alloc, pads,
                                                                   len(ghosts)))
