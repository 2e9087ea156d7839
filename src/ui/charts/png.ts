// A chart as a PNG: its SVG (drawn by recharts, coloured by the page's stylesheet) is copied
// with every element's computed presentation inlined, since an SVG drawn as an image sees no
// stylesheet; it is drawn onto a canvas under the chart's title and above a legend of its series,
// on the background the page shows (light or dark), at twice the size for sharp text.
import { downloadBlob } from '../download';

/** One series of a chart: its name and the CSS class that colours it. */
export interface LegendEntry {
  name: string;
  cls: string;
}

const SCALE = 2;
const PAD = 12;
const TITLE_PX = 14;
const LEGEND_PX = 12;
const LINE = 1.5;

const PROPS = [
  'fill', 'fill-opacity', 'stroke', 'stroke-width', 'stroke-dasharray', 'stroke-opacity', 'stroke-linecap', 'stroke-linejoin',
  'opacity', 'visibility', 'display', 'font-family', 'font-size', 'font-weight', 'text-anchor', 'dominant-baseline',
];

/** A copy of the SVG whose look no longer depends on the page's stylesheet. */
function standaloneSvg(svg: SVGSVGElement): string {
  const copy = svg.cloneNode(true) as SVGSVGElement;
  const from = [svg, ...svg.querySelectorAll('*')];
  const to = [copy, ...copy.querySelectorAll('*')];
  from.forEach((el, i) => {
    const cs = getComputedStyle(el);
    // through CSSOM: the page's CSP refuses style attributes set as text
    const style = (to[i] as SVGElement).style;
    for (const p of PROPS) style.setProperty(p, cs.getPropertyValue(p));
  });
  const { width, height } = svg.getBoundingClientRect();
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  copy.setAttribute('width', String(width));
  copy.setAttribute('height', String(height));
  return new XMLSerializer().serializeToString(copy);
}

/** The colour the page paints behind `el` (the first ancestor with a background). */
function backgroundOf(el: Element): string {
  for (let e: Element | null = el; e; e = e.parentElement) {
    const bg = getComputedStyle(e).backgroundColor;
    if (bg && bg !== 'transparent' && !/rgba\(.*,\s*0\)$/.test(bg)) return bg;
  }
  return matchMedia('(prefers-color-scheme: dark)').matches ? '#111418' : '#ffffff';
}

/** The colour a series is drawn in: its line's stroke, else its bar's or area's fill. */
function seriesColour(svg: SVGSVGElement, cls: string, fallback: string): string {
  const el = svg.querySelector(`.${cls} .recharts-curve, .${cls}.recharts-curve, .${cls} .recharts-rectangle, .${cls} .recharts-area-area`);
  if (!el) return fallback;
  const cs = getComputedStyle(el);
  return cs.stroke && cs.stroke !== 'none' ? cs.stroke : cs.fill;
}

async function loadImage(svgText: string): Promise<HTMLImageElement> {
  const url = URL.createObjectURL(new Blob([svgText], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    return img;
  } finally {
    URL.revokeObjectURL(url);
  }
}

interface Layout {
  width: number;
  height: number;
  legendRows: { entry: LegendEntry; x: number; y: number }[];
}

/** Places the legend entries in rows under the chart. */
function layout(ctx: CanvasRenderingContext2D, w: number, h: number, legend: readonly LegendEntry[]): Layout {
  const top = PAD + TITLE_PX + 8 + h + 8;
  const rows: Layout['legendRows'] = [];
  let x = PAD;
  let y = top;
  for (const entry of legend) {
    const width = 18 + ctx.measureText(entry.name).width + 16;
    if (x > PAD && x + width > w + PAD) {
      x = PAD;
      y += LEGEND_PX + 6;
    }
    rows.push({ entry, x, y });
    x += width;
  }
  return { width: w + 2 * PAD, height: (legend.length > 0 ? y + LEGEND_PX : top - 8) + PAD, legendRows: rows };
}

/** Renders the chart inside `figure` (title, plot, legend) to PNG bytes. */
export async function chartPng(figure: HTMLElement, title: string, legend: readonly LegendEntry[]): Promise<Blob> {
  const svg = figure.querySelector<SVGSVGElement>('svg.recharts-surface');
  if (!svg) throw new Error(`the chart "${title}" has nothing drawn yet`);
  const { width: w, height: h } = svg.getBoundingClientRect();
  const img = await loadImage(standaloneSvg(svg));
  const fs = getComputedStyle(figure);
  const font = fs.fontFamily || 'sans-serif';
  const ink = getComputedStyle(figure.querySelector('.chart-title') ?? figure).color;
  const canvas = document.createElement('canvas');
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('this browser cannot draw on a canvas');
  ctx.font = `${LEGEND_PX}px ${font}`;
  const l = layout(ctx, w, h, legend);
  canvas.width = Math.ceil(l.width * SCALE);
  canvas.height = Math.ceil(l.height * SCALE);
  ctx.scale(SCALE, SCALE);
  ctx.fillStyle = backgroundOf(figure);
  ctx.fillRect(0, 0, l.width, l.height);
  ctx.fillStyle = ink;
  ctx.textBaseline = 'top';
  ctx.font = `600 ${TITLE_PX}px ${font}`;
  ctx.fillText(title, PAD, PAD, w);
  ctx.drawImage(img, PAD, PAD + TITLE_PX + 8, w, h);
  ctx.font = `${LEGEND_PX}px ${font}`;
  for (const { entry, x, y } of l.legendRows) {
    ctx.fillStyle = seriesColour(svg, entry.cls, ink);
    ctx.fillRect(x, y + LEGEND_PX / 2 - LINE, 14, 2 * LINE);
    ctx.fillStyle = ink;
    ctx.fillText(entry.name, x + 18, y);
  }
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the canvas could not be encoded as PNG'))), 'image/png'));
}

/** Saves the chart as `rlvr-lab-<id>.png`. */
export async function downloadChartPng(figure: HTMLElement, id: string, title: string, legend: readonly LegendEntry[]): Promise<void> {
  downloadBlob(await chartPng(figure, title, legend), `rlvr-lab-chart-${id}.png`);
}
