"""Stable fluids (Stam, 1999) on a square grid with a one-cell border, in NumPy: the helpers of fluid.py.

The helpers given an array to fill (set_bnd, walls, corners, relax, lin_solve) write into it and return it; the
others return new arrays. The linear solves are red-black Gauss-Seidel sweeps whose Python loop Dynamo unrolls, so one
compiled step inlines these helpers hundreds of times.
"""

import numpy as np


def set_bnd(b, x):
    """Walls: the velocity component normal to a wall is mirrored (b = 1: u, 2: v), anything else copied."""
    return corners(walls(b, x))


def walls(b, x):
    """The border cells beside each wall take their inner neighbour's value (negated for the normal component)."""
    x[0, 1:-1] = -x[1, 1:-1] if b == 1 else x[1, 1:-1]
    x[-1, 1:-1] = -x[-2, 1:-1] if b == 1 else x[-2, 1:-1]
    x[1:-1, 0] = -x[1:-1, 1] if b == 2 else x[1:-1, 1]
    x[1:-1, -1] = -x[1:-1, -2] if b == 2 else x[1:-1, -2]
    return x


def corners(x):
    """Each corner takes the mean of its two border neighbours."""
    x[0, 0] = 0.5 * (x[1, 0] + x[0, 1])
    x[0, -1] = 0.5 * (x[1, -1] + x[0, -2])
    x[-1, 0] = 0.5 * (x[-2, 0] + x[-1, 1])
    x[-1, -1] = 0.5 * (x[-2, -1] + x[-1, -2])
    return x


def neighbours(x):
    """The sum of each inner cell's four neighbours."""
    return x[:-2, 1:-1] + x[2:, 1:-1] + x[1:-1, :-2] + x[1:-1, 2:]


def relax(x, x0, a, c, cells):
    """Half a red-black sweep: the inner ``cells`` of one colour take (x0 + a * their neighbours) / c."""
    x[1:-1, 1:-1] = np.where(cells, (x0[1:-1, 1:-1] + a * neighbours(x)) / c, x[1:-1, 1:-1])
    return x


def lin_solve(b, x, x0, a, c, sweeps, red):
    """Solve x = (x0 + a * (sum of x's four neighbours)) / c: ``sweeps`` red-black Gauss-Seidel sweeps."""
    for _ in range(sweeps):
        x = set_bnd(b, relax(relax(x, x0, a, c, red), x0, a, c, ~red))
    return x


def diffuse(b, x0, rate, dt, sweeps, red):
    """Spread ``x0`` at ``rate`` over a time step ``dt`` (implicitly: a linear solve, stable for any rate)."""
    n = x0.shape[0] - 2
    a = dt * rate * n * n
    return lin_solve(b, x0.copy(), x0, a, 1 + 4 * a, sweeps, red)


def advect(b, d0, u, v, dt):
    """Move ``d0`` along the velocity (u, v): each cell takes the value found a time step upstream."""
    n = d0.shape[0] - 2
    i, j = np.meshgrid(np.arange(1, n + 1), np.arange(1, n + 1), indexing="ij")
    x = np.clip(i - dt * n * u[1:-1, 1:-1], 0.5, n + 0.5)
    y = np.clip(j - dt * n * v[1:-1, 1:-1], 0.5, n + 0.5)
    i0, j0 = x.astype(np.int64), y.astype(np.int64)
    s1, t1 = x - i0, y - j0
    d = np.zeros_like(d0)
    d[1:-1, 1:-1] = ((1 - s1) * ((1 - t1) * d0[i0, j0] + t1 * d0[i0, j0 + 1])
                     + s1 * ((1 - t1) * d0[i0 + 1, j0] + t1 * d0[i0 + 1, j0 + 1]))
    return set_bnd(b, d)


def project(u, v, sweeps, red):
    """Make (u, v) divergence-free: solve for the pressure, subtract its gradient."""
    h = 1.0 / (u.shape[0] - 2)
    div = np.zeros_like(u)
    div[1:-1, 1:-1] = -0.5 * h * (u[2:, 1:-1] - u[:-2, 1:-1] + v[1:-1, 2:] - v[1:-1, :-2])
    p = lin_solve(0, np.zeros_like(u), set_bnd(0, div), 1.0, 4.0, sweeps, red)
    u, v = u.copy(), v.copy()
    u[1:-1, 1:-1] -= 0.5 * (p[2:, 1:-1] - p[:-2, 1:-1]) / h
    v[1:-1, 1:-1] -= 0.5 * (p[1:-1, 2:] - p[1:-1, :-2]) / h
    return set_bnd(1, u), set_bnd(2, v)
