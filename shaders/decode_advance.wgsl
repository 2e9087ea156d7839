// decode_advance: step[0] += 1, the last dispatch of a decode step. A separate one-invocation
// kernel because every kernel of the step reads the position and the step ends after all of them.
@group(0) @binding(0) var<storage, read_write> step: array<u32>;  // (1) current position s

@compute @workgroup_size(1)
fn main() {
  step[0] = step[0] + 1u;
}
