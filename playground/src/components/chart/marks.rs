//! What a chart is drawn with, and the SVG nodes each becomes.

use super::text::W;
use leptos::prelude::*;

/// One thing drawn, in view-box units.
#[derive(Debug, Clone, PartialEq)]
pub enum Mark {
    /// A label or a value, anchored at its start unless said otherwise.
    Text {
        at: (f64, f64),
        class: &'static str,
        anchor: Option<&'static str>,
        text: String,
    },
    /// A bar, with what it shows on hover.
    Bar {
        at: (f64, f64),
        size: (f64, f64),
        class: String,
        title: String,
    },
    /// An axis or a rule, from one point to another.
    Rule {
        from: (f64, f64),
        to: (f64, f64),
        class: &'static str,
    },
    /// A line through points.
    Line { points: String, class: String },
    /// A point, with what it shows on hover.
    Dot {
        at: (f64, f64),
        r: f64,
        class: String,
        title: String,
    },
}

impl Mark {
    /// Text anchored at its start.
    pub fn text(at: (f64, f64), class: &'static str, text: String) -> Mark {
        Mark::Text {
            at,
            class,
            anchor: None,
            text,
        }
    }
}

/// A coordinate as the drawing writes it.
fn n(v: f64) -> String {
    format!("{v:.1}")
}

#[component]
pub fn Drawing(height: f64, marks: Vec<Mark>) -> impl IntoView {
    view! {
        <svg viewBox=format!("0 0 {W} {height:.0}") focusable="false">
            {marks.into_iter().map(mark).collect_view()}
        </svg>
    }
}

fn mark(m: Mark) -> AnyView {
    match m {
        Mark::Text {
            at: (x, y),
            class,
            anchor,
            text,
        } => view! { <text x=n(x) y=n(y) class=class text-anchor=anchor>{text}</text> }.into_any(),
        Mark::Bar {
            at: (x, y),
            size: (w, h),
            class,
            title,
        } => view! {
            <rect x=n(x) y=n(y) width=n(w) height=n(h) class=class><title>{title}</title></rect>
        }
        .into_any(),
        Mark::Rule {
            from: (x1, y1),
            to: (x2, y2),
            class,
        } => view! { <line x1=n(x1) x2=n(x2) y1=n(y1) y2=n(y2) class=class></line> }.into_any(),
        Mark::Line { points, class } => {
            view! { <polyline points=points class=class fill="none"></polyline> }.into_any()
        }
        Mark::Dot {
            at: (cx, cy),
            r,
            class,
            title,
        } => view! {
            <circle cx=n(cx) cy=n(cy) r=n(r) class=class><title>{title}</title></circle>
        }
        .into_any(),
    }
}
