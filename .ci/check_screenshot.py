#!/usr/bin/env python3
"""Check a screenshot of the game window: the right size, not blank, and
showing the board and both sides' tokens; on the battle screen, the
timeline's lanes (named in the sides' colours) with marks on them.
Standard library only."""
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat, width, height, colour, depth = 8, b"", 0, 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    if depth != 8 or colour not in (2, 6):
        raise SystemExit(f"{path}: expected 8-bit RGB or RGBA, got depth {depth} colour type {colour}")
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return width, height, channels, rows


def timeline(rows, ch):
    """Pixels of lane names (in a side's colour) in the timeline's gutter at
    the bottom left of the board's column, and bright marks along the lanes."""
    names = marks = 0
    for y in range(512, 600):
        row = rows[y]
        for x in range(275, 365):
            r, g, b = row[x * ch], row[x * ch + 1], row[x * ch + 2]
            if (b > 180 and r < 110 and 90 < g < 180) or (r > 180 and g < 110 and b < 100):
                names += 1
        for x in range(365, 890):
            r, g, b = row[x * ch], row[x * ch + 1], row[x * ch + 2]
            if r + g + b > 420:
                marks += 1
    return names, marks


def main():
    path, want_w, want_h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    # "both": tokens of both sides must show; "any": a result screen, where one side may be all fallen.
    sides = sys.argv[4] if len(sys.argv) > 4 else "both"
    w, h, ch, rows = read_png(path)
    problems = []
    if (w, h) != (want_w, want_h):
        problems.append(f"size {w}x{h}, expected {want_w}x{want_h}")
    colours = {}
    blue = red = board = fallen = 0
    for y in range(0, h, 2):
        row = rows[y]
        for x in range(0, w, 2):
            r, g, b = row[x * ch], row[x * ch + 1], row[x * ch + 2]
            colours[(r >> 4, g >> 4, b >> 4)] = colours.get((r >> 4, g >> 4, b >> 4), 0) + 1
            if b > 180 and r < 110 and 90 < g < 180:
                blue += 1  # the first side's tokens
            if r > 180 and g < 110 and b < 100:
                red += 1  # the second side's tokens
            if (b > 230 and r > 180 and b - r > 30) or (r > 225 and g > 180 and r - g > 25 and r - b > 25):
                fallen += 1  # a token drawn pale: its combatant is down
            if 40 < r < 70 and 50 < g < 75 and 40 < b < 65 and g >= r:
                board += 1  # open ground tiles
    if len(colours) < 20:
        problems.append(f"only {len(colours)} distinct colours: the window looks blank")
    if board < 2000:
        problems.append(f"too little board visible ({board} sampled pixels)")
    # A result may leave nobody standing: its tokens show pale.
    if (sides == "both" and (blue < 40 or red < 40)) or blue + red + fallen < 40:
        problems.append(f"tokens not visible (blue {blue}, red {red}, pale {fallen} sampled pixels)")
    if sides == "both":
        names, marks = timeline(rows, ch)
        if names < 40 or marks < 40:
            problems.append(f"the timeline shows no lanes ({names} name pixels, {marks} mark pixels)")
    if problems:
        raise SystemExit(f"{path}: " + "; ".join(problems))
    print(f"{path}: {w}x{h}, {len(colours)} colours, board {board}, tokens blue {blue} red {red} pale {fallen}: ok")


main()
