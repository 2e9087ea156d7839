// A small hand-rolled ONNX graph builder over onnx-proto's message classes: nodes, constant
// tensors and typed graph inputs/outputs, then one encoded ModelProto. Browser-safe (bytes out).
// Each node's single output carries the node's name, so Netron shows the same names as the code.
import onnxProto from 'onnx-proto';
import type { onnx } from 'onnx-proto';

const proto = onnxProto.onnx;
const DT = proto.TensorProto.DataType;
const AT = proto.AttributeProto.AttributeType;

/** Opset 17 belongs to IR version 8 (onnx 1.12). */
export const ONNX_OPSET = 17;
export const ONNX_IR_VERSION = 8;

/** An attribute value with its ONNX type made explicit (JS numbers do not say int or float). */
export type Attr = { int: number } | { ints: readonly number[] } | { float: number };

export const int = (v: number): Attr => ({ int: v });
export const ints = (v: readonly number[]): Attr => ({ ints: v });
export const float = (v: number): Attr => ({ float: v });

/** ONNX's element type of bool (Cast's `to`). */
export const BOOL_TYPE = DT.BOOL;

function toAttribute(name: string, a: Attr): onnx.IAttributeProto {
  if ('int' in a) return { name, type: AT.INT, i: a.int };
  if ('ints' in a) return { name, type: AT.INTS, ints: [...a.ints] };
  return { name, type: AT.FLOAT, f: a.float };
}

// ONNX raw_data is little-endian; typed arrays use the platform's byte order.
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

const bytesOf = (a: Float32Array | BigInt64Array | Uint8Array): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** A dimension of a graph input or output: a fixed size or a symbolic name ('batch'). */
export type Dim = number | string;

function valueInfo(name: string, elemType: number, dims: readonly Dim[]): onnx.IValueInfoProto {
  const dim = dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d }));
  return { name, type: { tensorType: { elemType, shape: { dim } } } };
}

export class GraphBuilder {
  private readonly nodes: onnx.INodeProto[] = [];
  private readonly initializers: onnx.ITensorProto[] = [];
  private readonly inputs: onnx.IValueInfoProto[] = [];
  private readonly outputs: onnx.IValueInfoProto[] = [];
  private readonly names = new Set<string>(); // values: inputs, constants, node outputs
  private readonly nodeNames = new Set<string>();

  constructor() {
    if (!LITTLE_ENDIAN) throw new Error('ONNX export needs a little-endian platform (raw_data is little-endian)');
  }

  private claim(name: string): string {
    if (this.names.has(name)) throw new Error(`ONNX graph: two values are named "${name}"`);
    this.names.add(name);
    return name;
  }

  /** A node with one output, named `name`; returns that output's name. */
  op(opType: string, name: string, inputs: readonly string[], attrs: Record<string, Attr> = {}): string {
    return this.opN(opType, name, inputs, [name], attrs)[0];
  }

  /** A node with several outputs (e.g. Split); returns their names. */
  opN(opType: string, name: string, inputs: readonly string[], outputs: readonly string[], attrs: Record<string, Attr> = {}): string[] {
    if (this.nodeNames.has(name)) throw new Error(`ONNX graph: two nodes are named "${name}"`);
    this.nodeNames.add(name);
    for (const o of outputs) this.claim(o);
    const attribute = Object.entries(attrs).map(([k, v]) => toAttribute(k, v));
    this.nodes.push({ name, opType, input: [...inputs], output: [...outputs], attribute });
    return [...outputs];
  }

  private constant(name: string, dataType: number, dims: readonly number[], raw: Uint8Array): string {
    this.initializers.push({ name: this.claim(name), dataType, dims: [...dims], rawData: raw });
    return name;
  }

  f32(name: string, dims: readonly number[], data: Float32Array): string {
    return this.constant(name, DT.FLOAT, dims, bytesOf(data));
  }

  /** A 1-D int64 constant (shapes, axes, split sizes). */
  i64(name: string, values: readonly number[]): string {
    return this.constant(name, DT.INT64, [values.length], bytesOf(BigInt64Array.from(values, BigInt)));
  }

  /** A boolean constant, one byte per element (0 or 1). */
  bool(name: string, dims: readonly number[], data: Uint8Array): string {
    return this.constant(name, DT.BOOL, dims, data);
  }

  inputInt32(name: string, dims: readonly Dim[]): string {
    this.inputs.push(valueInfo(this.claim(name), DT.INT32, dims));
    return name;
  }

  inputInt64(name: string, dims: readonly Dim[]): string {
    this.inputs.push(valueInfo(this.claim(name), DT.INT64, dims));
    return name;
  }

  inputF32(name: string, dims: readonly Dim[]): string {
    this.inputs.push(valueInfo(this.claim(name), DT.FLOAT, dims));
    return name;
  }

  /** Declares an existing value as a float graph output. */
  outputF32(name: string, dims: readonly Dim[]): void {
    this.outputs.push(valueInfo(name, DT.FLOAT, dims));
  }

  /** The whole model, encoded. `metadata` becomes metadata_props (string pairs). */
  encode(graphName: string, docString: string, metadata: Readonly<Record<string, string>>): Uint8Array {
    const model: onnx.IModelProto = {
      irVersion: ONNX_IR_VERSION,
      opsetImport: [{ domain: '', version: ONNX_OPSET }],
      producerName: 'rlvr-lab',
      docString,
      metadataProps: Object.entries(metadata).map(([key, value]) => ({ key, value })),
      graph: {
        name: graphName,
        node: this.nodes,
        initializer: this.initializers,
        input: this.inputs,
        output: this.outputs,
      },
    };
    return proto.ModelProto.encode(model).finish();
  }
}
