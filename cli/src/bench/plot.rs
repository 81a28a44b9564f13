//! `segbatch bench --plot FILE.svg`: throughput against batch size, one panel per workload,
//! a line per implementation and the streaming bounds as dashed lines.

use plotters::prelude::*;

use super::common::size_label;
use super::report::{Implementation, Report};

const COLORS: [RGBColor; 3] = [
    RGBColor(120, 120, 120),
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
];

/// Draws the report as an SVG document (written by the caller, through the output writer).
pub fn draw(report: &Report, sizes: &[usize]) -> Result<String, Box<dyn std::error::Error>> {
    let mut svg = String::new();
    draw_into(&mut svg, report, sizes)?;
    Ok(svg)
}

fn draw_into(
    svg: &mut String,
    report: &Report,
    sizes: &[usize],
) -> Result<(), Box<dyn std::error::Error>> {
    let panels = report.workloads.len();
    let cols = if panels > 1 { 2 } else { 1 };
    let rows = panels.div_ceil(cols);
    let root = SVGBackend::with_string(svg, (560 * cols as u32, 400 * rows as u32 + 40))
        .into_drawing_area();
    root.fill(&WHITE)?;
    let (title, body) = root.split_vertically(40);
    title.titled(
        &format!(
            "segbatch bench: throughput vs batch size (SIMD {}, {} threads)",
            segbatch::simd::SIMD_LEVEL,
            report.threads
        ),
        ("sans-serif", 20),
    )?;
    let areas = body.split_evenly((rows, cols));

    let x_lo = *sizes.first().expect("sizes") as f64;
    let x_hi = *sizes.last().expect("sizes") as f64;
    let (x_lo, x_hi) = if x_lo == x_hi {
        (x_lo / 2.0, x_hi * 2.0)
    } else {
        (x_lo, x_hi)
    };
    let mut y_lo = f64::MAX;
    let mut y_hi = 0f64;
    for r in &report.rows {
        let v = Report::mpairs(r.pairs, &r.figure);
        y_lo = y_lo.min(v);
        y_hi = y_hi.max(v);
    }
    for b in &report.bounds {
        y_hi = y_hi.max(Report::mpairs(b.pairs, &b.parallel));
        y_hi = y_hi.max(Report::mpairs(b.pairs, &b.single));
    }
    let (y_lo, y_hi) = (y_lo / 1.5, y_hi * 1.5);

    for (workload, area) in report.workloads.iter().zip(areas) {
        let mut chart = ChartBuilder::on(&area)
            .caption(workload.name, ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(55)
            .build_cartesian_2d((x_lo..x_hi).log_scale(), (y_lo..y_hi).log_scale())?;
        chart
            .configure_mesh()
            .x_desc("pairs per batch")
            .y_desc("million pairs / s")
            .x_label_formatter(&|x| size_label(x.round() as usize))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .draw()?;
        for (imp, color) in Implementation::ALL.iter().zip(COLORS) {
            let points: Vec<(f64, f64)> = report
                .rows
                .iter()
                .filter(|r| r.workload == workload.name && r.implementation == *imp)
                .map(|r| (r.pairs as f64, Report::mpairs(r.pairs, &r.figure)))
                .collect();
            chart
                .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?
                .label(imp.key())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
        }
        for (label, parallel, color) in [
            ("bound, 1 thread", false, COLORS[1]),
            ("bound, all threads", true, COLORS[2]),
        ] {
            let points: Vec<(f64, f64)> = report
                .bounds
                .iter()
                .map(|b| {
                    let f = if parallel { &b.parallel } else { &b.single };
                    (b.pairs as f64, Report::mpairs(b.pairs, f))
                })
                .collect();
            chart
                .draw_series(DashedLineSeries::new(
                    points,
                    6,
                    4,
                    color.mix(0.6).stroke_width(1),
                ))?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.mix(0.6)));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    Ok(())
}
