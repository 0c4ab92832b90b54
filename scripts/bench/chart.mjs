// @ts-check
// The benchmark's chart: one bar per measurement, app / baseline, with the 1.0x line marked, so a
// reader sees at a glance where the app costs more than a bare Next.js app.
const ROW_HEIGHT = 22;
const LABEL_WIDTH = 330;
const BAR_WIDTH = 420;
const MAX_RATIO = 2;
const NEUTRAL = '#5b8def';
const BETTER = '#3aa57a';
const WORSE = '#e8833a';

/** @param {string} text */
const escapeXml = (text) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/**
 * @param {{ metric: string, unit: string, ratio: number }[]} rows
 * @param {string} date an ISO date and time
 */
export function renderChart(rows, date) {
  const top = 48;
  const height = top + rows.length * ROW_HEIGHT + 30;
  const width = LABEL_WIDTH + BAR_WIDTH + 90;
  const x = (/** @type {number} */ ratio) => LABEL_WIDTH + (Math.min(ratio, MAX_RATIO) / MAX_RATIO) * BAR_WIDTH;
  const bars = rows.map((row, index) => {
    const y = top + index * ROW_HEIGHT;
    const ratio = Number.isFinite(row.ratio) ? row.ratio : 0;
    // Within 10 % of the baseline: neutral; otherwise green when the app does better, orange when worse.
    const higherIsBetter = row.unit === '/s' || row.metric.startsWith('Lighthouse score');
    const advantage = higherIsBetter ? ratio - 1 : 1 - ratio;
    const colour = Math.abs(advantage) < 0.1 ? NEUTRAL : advantage > 0 ? BETTER : WORSE;
    return [
      `<text x="${LABEL_WIDTH - 8}" y="${y + 15}" text-anchor="end">${escapeXml(row.metric)}</text>`,
      `<rect x="${LABEL_WIDTH}" y="${y + 4}" width="${(x(ratio) - LABEL_WIDTH).toFixed(1)}" height="${ROW_HEIGHT - 8}" fill="${colour}"/>`,
      `<text x="${(x(ratio) + 6).toFixed(1)}" y="${y + 15}">${ratio.toFixed(2)}x</text>`,
    ].join('');
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-labelledby="chart-title" width="${width}" height="${height}" font-family="system-ui, sans-serif" font-size="12">
<title id="chart-title">App compared with a bare Next.js baseline, ratio per measurement</title>
<rect width="100%" height="100%" fill="#fff"/>
<text x="12" y="20" font-size="15" font-weight="600">App / bare Next.js baseline (medians, same run, ${escapeXml(date.slice(0, 10))})</text>
<text x="12" y="38" fill="#555">1.0x = same as the baseline. Bars are cut at ${MAX_RATIO}x. Higher is better for requests/s and Lighthouse score; lower for the rest.</text>
<text x="12" y="${height - 10}" fill="#555"><tspan fill="${BETTER}">■</tspan> app better  <tspan fill="${NEUTRAL}">■</tspan> within 10 %  <tspan fill="${WORSE}">■</tspan> app worse</text>
${bars.join('\n')}
<line x1="${x(1)}" y1="${top - 4}" x2="${x(1)}" y2="${height - 24}" stroke="#222" stroke-dasharray="4 3"/>
<text x="${x(1)}" y="${height - 10}" text-anchor="middle">1.0x</text>
</svg>
`;
}
