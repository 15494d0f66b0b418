"""Checks a browser's rendering of a `layoutc draw` SVG (a PNG screenshot by
headless Chromium): every tile color the SVG uses covers at least half the
area of its cells on screen, the hatch of padding places is there when the
SVG has padding, and dark text pixels fill part of each cell (the offsets
were drawn). A blank, clipped or unstyled rendering fails.

usage: png_check.py SVG PNG   (standard library only: zlib decodes the PNG)"""
import re
import struct
import sys
import zlib
import xml.etree.ElementTree as ET


def decode_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("%s is not a PNG" % path)
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                sys.exit("unexpected PNG format (depth %d, color type %d)" % (depth, ctype))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride = zlib.decompress(idat), width * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


svg_path, png_path = sys.argv[1], sys.argv[2]
ns = "{http://www.w3.org/2000/svg}"
svg = ET.parse(svg_path).getroot()
cells = [g for g in svg.findall(ns + "g") if "ghost" not in g.get("class").split()]
ghosts = [g for g in svg.findall(ns + "g") if "ghost" in g.get("class").split()]
area = {}
for g in cells:
    r = g.find(ns + "rect")
    color = r.get("fill").lower()
    area[color] = area.get(color, 0) + int(r.get("width")) * int(r.get("height"))
width, height, bpp, rows = decode_png(png_path)
count, dark, hatch = {}, 0, 0
for row in rows:
    for x in range(0, width * bpp, bpp):
        rgb = "#%02x%02x%02x" % (row[x], row[x + 1], row[x + 2])
        count[rgb] = count.get(rgb, 0) + 1
        if row[x] < 90 and row[x + 1] < 90 and row[x + 2] < 90:
            dark += 1
        if rgb in ("#eeeeee", "#cccccc"):
            hatch += 1
for color, want in sorted(area.items()):
    if count.get(color, 0) < want // 2:
        sys.exit("tile color %s covers %d pixels on screen, its cells %d" % (color, count.get(color, 0), want))
if ghosts and hatch < 20 * len(ghosts):
    sys.exit("%d hatch pixels for %d ghost cells" % (hatch, len(ghosts)))
if dark < 15 * len(cells):
    sys.exit("%d dark (text) pixels for %d cells: the offsets are not drawn" % (dark, len(cells)))
print("rendered: %dx%d, %d tile colors on screen, %d cells with text, hatch %s" % (
    width, height, len(area), len(cells), "shown" if hatch else "none"))
