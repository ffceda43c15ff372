//! How `classad query` prints the ads it selects, in the form the command line
//! asks for: whole (`-long`, `-json`, ...), a line of values (`-af`), printf
//! formats (`-format`), or the tables of `condor_status` and `condor_q` (the
//! default, and `-total`).

use super::autoformat::{Autoformat, Row};
use super::format_option::Formats;
use super::long_form::{LongForm, LongWriter};
use super::table_view::{Place, TableView};
use crate::ad::ClassAd;
use std::io::Write;
use std::sync::Arc;

/// The form of the output, as the last option that chose one asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// The table of each ad's `MyType` (no option).
    Tables,
    /// Only the tables' totals (`-total`).
    Totals,
    /// Whole, in a form.
    Whole(LongForm),
    /// One line of values each (`-af`).
    Autoformat,
    /// The `-format` formats.
    Format,
}

/// Prints the selected ads in the form asked for.
pub enum Printer<'q> {
    /// Whole ads.
    Whole(LongWriter),
    /// `-af` lines, each printed as its ad is rendered.
    Lines(&'q mut Autoformat),
    /// `-af` lines under headings: every row is rendered before the headings
    /// are printed, since those are padded to the widest value of each column.
    Headed(&'q mut Autoformat, Vec<Row>),
    /// `-format`: what the formats print, ad after ad.
    Formats(&'q Formats),
    /// The tables (or their totals); boxed, being far larger than the others.
    Tables(Box<TableView>),
}

impl<'q> Printer<'q> {
    /// A printer of `output`; `attributes` for the ads printed whole
    /// (`-attributes`), `now` for the tables.
    pub fn new(
        output: Output,
        attributes: Option<Vec<String>>,
        autoformat: &'q mut Autoformat,
        formats: &'q Formats,
        now: i64,
    ) -> Printer<'q> {
        match output {
            Output::Whole(form) => Printer::Whole(LongWriter::new(form, attributes)),
            Output::Autoformat if autoformat.has_headings() => {
                Printer::Headed(autoformat, Vec::new())
            }
            Output::Autoformat => Printer::Lines(autoformat),
            Output::Format => Printer::Formats(formats),
            Output::Tables => Printer::Tables(Box::new(TableView::new(false, attributes, now))),
            Output::Totals => Printer::Tables(Box::new(TableView::new(true, attributes, now))),
        }
    }

    /// Prints (or keeps, for a table) an ad read at `place`.
    pub fn ad(
        &mut self,
        ad: &Arc<ClassAd>,
        place: Place,
        out: &mut dyn Write,
    ) -> std::io::Result<()> {
        match self {
            Printer::Whole(w) => w.write_ad(ad, out),
            Printer::Lines(af) => {
                let row = af.render(ad);
                let mut line = String::new();
                af.write_row(&row, &mut line);
                out.write_all(line.as_bytes())
            }
            Printer::Headed(af, rows) => {
                rows.push(af.render(ad));
                Ok(())
            }
            Printer::Formats(f) => out.write_all(f.render(ad).as_bytes()),
            Printer::Tables(view) => view.ad(ad, place, out),
        }
    }

    /// Prints what waits for every ad: closings, headed lines, tables.
    pub fn finish(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        match self {
            Printer::Whole(w) => w.finish(out),
            Printer::Lines(_) | Printer::Formats(_) => Ok(()),
            Printer::Headed(af, rows) => {
                // The headings even when no ad was selected, as condor_status does.
                let mut text = String::new();
                af.write_headings(&mut text);
                for row in rows.iter() {
                    af.write_row(row, &mut text);
                }
                out.write_all(text.as_bytes())
            }
            Printer::Tables(view) => view.finish(out),
        }
    }

    /// With `-total`, how many ads no totals count, and the first.
    pub fn uncounted(&self) -> Option<(u64, Place)> {
        match self {
            Printer::Tables(view) => view.uncounted(),
            _ => None,
        }
    }
}
