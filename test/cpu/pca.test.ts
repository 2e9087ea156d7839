// The pool map's projection: on points spread along known orthogonal directions, the first
// component is the direction of the largest spread and the second the next, both unit length
// and orthogonal; the projection recovers each point's coordinates along them.
import { describe, expect, it } from 'vitest';
import { principalComponents, project2d } from '../../src/state/charts/pca';

describe('principal components', () => {
  const u = [0.6, 0.8, 0, 0];
  const w = [0, 0, 1, 0];
  // spread along u larger than along w, uncorrelated, about a fixed offset
  const coords = [[-3, 1], [3, 1], [-1.5, -1], [1.5, -1], [0, 0.5], [0, -0.5]];
  const rows = coords.map(([a, b]) => u.map((x, j) => 5 + a * x + b * w[j]));

  it('finds the directions of largest spread, in order, orthonormal', () => {
    const [p1, p2] = principalComponents(rows, 2);
    expect(Math.abs(p1[0] * u[0] + p1[1] * u[1])).toBeCloseTo(1, 6);
    expect(Math.abs(p2[2])).toBeCloseTo(1, 6);
    expect(p1.reduce((a, x, j) => a + x * p2[j], 0)).toBeCloseTo(0, 8);
  });

  it('projects each point on them (signs fixed: the largest entry positive)', () => {
    const xy = project2d(rows);
    coords.forEach(([a, b], i) => {
      expect(xy[i].x).toBeCloseTo(a, 6);
      expect(xy[i].y).toBeCloseTo(b, 6);
    });
    expect(project2d([])).toEqual([]);
    // a single point: no spread, it sits at the origin
    expect(project2d([[1, 2, 3]])).toEqual([{ x: 0, y: 0 }]);
  });
});
