// A bundled example of the media capabilities: draw a bar chart on a canvas, write the PNG into
// the workspace, and read it back through a media ref. Run it with a workspace:
//   ./sandjar run examples/chart.js --workspace /tmp/charts
const sales = [
  { month: "Jan", value: 42 },
  { month: "Feb", value: 58 },
  { month: "Mar", value: 35 },
  { month: "Apr", value: 71 },
  { month: "May", value: 64 },
];
const width = 400;
const height = 240;
const chart = createCanvas(width, height);
const ctx = chart.getContext("2d");

ctx.fillStyle = "#ffffff";
ctx.fillRect(0, 0, width, height);
ctx.fillStyle = "#222222";
ctx.font = "bold 16px sans-serif";
ctx.textAlign = "center";
ctx.fillText("Sales per month", width / 2, 24);

const left = 40;
const bottom = height - 30;
const plotHeight = bottom - 40;
const max = Math.max(...sales.map((s) => s.value));
const slot = (width - left - 20) / sales.length;
ctx.strokeStyle = "#888888";
ctx.beginPath();
ctx.moveTo(left, 36);
ctx.lineTo(left, bottom);
ctx.lineTo(width - 10, bottom);
ctx.stroke();

ctx.font = "12px sans-serif";
sales.forEach((s, i) => {
  const h = (s.value / max) * plotHeight;
  const x = left + i * slot + slot * 0.15;
  const gradient = ctx.createLinearGradient(0, bottom - h, 0, bottom);
  gradient.addColorStop(0, "#4a90d9");
  gradient.addColorStop(1, "#1c4e80");
  ctx.fillStyle = gradient;
  ctx.fillRect(x, bottom - h, slot * 0.7, h);
  ctx.fillStyle = "#222222";
  ctx.fillText(String(s.value), x + slot * 0.35, bottom - h - 6);
  ctx.fillText(s.month, x + slot * 0.35, bottom + 16);
});

const png = await chart.toBytes("image/png");
await workspace.writeBytes("chart.png", png);
const info = await image.info("chart.png"); // a workspace path is a media ref
console.log(`wrote chart.png: ${info.width} x ${info.height}, ${png.length} bytes`);
return { file: "chart.png", width: info.width, height: info.height, format: info.format };
