//! The chart core chose (`nl2sql_core::chart`), drawn as SVG nodes sized for a phone: a
//! view box 360 wide, so labels stay readable at 390 px and are never drawn larger than
//! about one and a half times that on a wide screen. Every label is a text node; nothing a
//! model wrote is drawn but values.

mod bars;
mod draw;
mod frame;
mod line;
mod marks;
mod scatter;
mod text;

pub use draw::{draw, Drawn};

use leptos::prelude::*;
use marks::Drawing;

/// A drawn chart with its caption and legend, hidden while the table is shown.
#[component]
pub fn ChartFigure(drawn: Drawn, hidden: ReadSignal<bool>) -> impl IntoView {
    let Drawn {
        kind,
        title,
        height,
        marks,
        legend,
    } = drawn;
    view! {
        <figure class="chart" data-kind=kind hidden=hidden>
            <figcaption>{title.clone()}</figcaption>
            <div class="chart-svg" role="img" aria-label=title>
                <Drawing height=height marks=marks />
            </div>
            {(!legend.is_empty()).then(|| view! {
                <ul class="legend">
                    {legend.into_iter().enumerate().map(|(k, name)| view! {
                        <li><span class=format!("swatch s{k}")></span>{name}</li>
                    }).collect_view()}
                </ul>
            })}
        </figure>
    }
}
