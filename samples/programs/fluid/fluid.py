"""A stable-fluids smoke solver: NumPy code compiled with torch.compile, its helpers in solver.py beside it.

    python samples/programs/fluid/fluid.py [--size 64] [--steps 1] [--sweeps 4] [--frames 6] [--still]

Not a sample: a program, for `inspector run samples/programs/fluid/fluid.py`. Each frame is one call of the
compiled ``simulate``, which advances the fluid ``--steps`` time steps; Dynamo unrolls the steps and the Gauss-Seidel
sweeps (``--sweeps`` per solve, five solves per step) into one graph, inlining solver.py's helpers hundreds of times:
a large program for torch.compile, and for inspector. ``--still`` keeps the velocity as it starts (a vortex) and
moves only the smoke: one solve per step, a small program.
"""

import argparse

import numpy as np
import torch

from solver import advect, diffuse, project

DT, VISCOSITY, DIFFUSION = 0.1, 1e-4, 1e-4


def simulate(u, v, density, source, red, steps, sweeps, still):
    """``steps`` time steps of the velocity (u, v), unless ``still``, and of the smoke it carries from a source."""
    for _ in range(steps):
        if not still:
            u, v = u + DT * source, v + DT * source
            u, v = diffuse(1, u, VISCOSITY, DT, sweeps, red), diffuse(2, v, VISCOSITY, DT, sweeps, red)
            u, v = project(u, v, sweeps, red)
            u, v = advect(1, u, u, v, DT), advect(2, v, u, v, DT)
            u, v = project(u, v, sweeps, red)
        density = diffuse(0, density + DT * source, DIFFUSION, DT, sweeps, red)
        density = advect(0, density, u, v, DT)
    return u, v, density


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=64, help="cells per side, border excluded")
    parser.add_argument("--steps", type=int, default=1, help="time steps per frame (unrolled by Dynamo)")
    parser.add_argument("--sweeps", type=int, default=4, help="Gauss-Seidel sweeps per solve (unrolled)")
    parser.add_argument("--frames", type=int, default=6, help="calls of the compiled simulate")
    parser.add_argument("--still", action="store_true", help="keep the velocity as it starts: move only the smoke")
    args = parser.parse_args()
    n = args.size + 2
    i, j = np.meshgrid(np.linspace(-1, 1, n), np.linspace(-1, 1, n), indexing="ij")
    u, v, density = -j * (1 - i**2 - j**2).clip(0), i * (1 - i**2 - j**2).clip(0), np.zeros((n, n))
    source = np.zeros((n, n))
    source[n // 2 - 2:n // 2 + 2, 2:6] = 10.0
    red = (np.add.outer(np.arange(args.size), np.arange(args.size)) % 2) == 0

    frame = torch.compile(simulate)
    for _ in range(args.frames):
        u, v, density = frame(u, v, density, source, red, args.steps, args.sweeps, args.still)
    print(f"done: {args.frames} frames of {args.steps} steps, {args.size}x{args.size} cells, "
          f"total density {density.sum():.4f}")


if __name__ == "__main__":
    main()
