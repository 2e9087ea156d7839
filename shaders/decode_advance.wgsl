// decode_advance: step[b] += 1 for every sequence b, the last dispatch of a decode step. A
// separate kernel because every kernel of the step reads the positions and the step ends after
// all of them.
@group(0) @binding(0) var<storage, read_write> step: array<u32>;  // (B) current position of each sequence

override WG: u32 = 64u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  if (gid.x < arrayLength(&step)) {
    step[gid.x] = step[gid.x] + 1u;
  }
}
