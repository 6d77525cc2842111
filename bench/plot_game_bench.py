#!/usr/bin/env python3
"""Draws docs/img/game-bench.svg from `game_bench --json` (standard library only).

Usage: build/bin/game_bench --json > /tmp/game.json
       bench/plot_game_bench.py /tmp/game.json docs/img/game-bench.svg
"""
import json
import sys

SERIES = [
    ("random_moves_per_s", "random play", "#4e79a7"),
    ("undo_moves_per_s", "branch + undo", "#59a14f"),
    ("drop_all_moves_per_s", "drop-all (floor)", "#bab0ac"),
    ("clone_moves_per_s", "branch + clone", "#e15759"),
]


def main():
    rows = json.load(open(sys.argv[1]))
    width, height = 760, 420
    left, right, top, bottom = 80, 20, 50, 90
    plot_w, plot_h = width - left - right, height - top - bottom
    # Log scale from 10k to 100M moves per second.
    lo, hi = 4, 8

    def y(value):
        import math
        v = max(math.log10(max(value, 1)), lo)
        return top + plot_h * (1 - (v - lo) / (hi - lo))

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           'font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="24" text-anchor="middle" font-size="15">'
           'MMapGame engine: moves per second, one core (log scale)</text>']
    for exp in range(lo, hi + 1):
        yy = y(10 ** exp)
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{yy}" y2="{yy}" stroke="#ddd"/>')
        label = {4: "10k", 5: "100k", 6: "1M", 7: "10M", 8: "100M"}[exp]
        out.append(f'<text x="{left - 8}" y="{yy + 4}" text-anchor="end">{label}</text>')
    target = y(1e6)
    out.append(f'<line x1="{left}" x2="{width - right}" y1="{target}" y2="{target}" '
               'stroke="#333" stroke-dasharray="4 3"/>')
    group_w = plot_w / len(rows)
    bar_w = group_w * 0.8 / len(SERIES)
    for i, row in enumerate(rows):
        x0 = left + i * group_w + group_w * 0.1
        for j, (key, _, color) in enumerate(SERIES):
            yy = y(row[key])
            out.append(f'<rect x="{x0 + j * bar_w:.1f}" y="{yy:.1f}" width="{bar_w - 2:.1f}" '
                       f'height="{top + plot_h - yy:.1f}" fill="{color}"/>')
        cx = left + (i + 0.5) * group_w
        out.append(f'<text x="{cx}" y="{top + plot_h + 18}" text-anchor="middle">'
                   f'{row["buffers"]} buffers</text>')
        out.append(f'<text x="{cx}" y="{top + plot_h + 34}" text-anchor="middle" fill="#555">'
                   f'{row["overlaps_per_query"]:.0f} overlaps/query</text>')
    for j, (_, name, color) in enumerate(SERIES):
        lx = left + j * 160
        out.append(f'<rect x="{lx}" y="{height - 30}" width="12" height="12" fill="{color}"/>')
        out.append(f'<text x="{lx + 18}" y="{height - 20}">{name}</text>')
    out.append('</svg>')
    open(sys.argv[2], "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
