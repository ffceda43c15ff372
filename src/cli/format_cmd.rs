//! `classad format`: convert a file of ads between old, new, JSON and XML syntax.

use super::io::{load_ads, output_error};
use super::Failure;
use crate::ad::json::unparse_ad_json;
use crate::ad::xml::write_ads_xml;
use crate::ad::ClassAd;
use crate::ad::{unparse_ad, unparse_ad_old};
use clap::Args;
use std::io::Write;
use std::process::ExitCode;

/// Arguments of `classad format`.
#[derive(Args, Debug)]
pub struct FormatArgs {
    /// Old syntax, as `condor_q -l` prints (the default).
    #[arg(long, group = "syntax")]
    #[allow(dead_code)] // clap reads the flag; old syntax is also what no flag means
    old: bool,
    /// New syntax, one `[ ... ]` ad per line.
    #[arg(long, group = "syntax")]
    new: bool,
    /// JSON, as `condor_q -json` prints (an array of objects).
    #[arg(long, group = "syntax")]
    json: bool,
    /// XML, as `condor_q -xml` prints (`<classads>` of `<c>` ads).
    #[arg(long, group = "syntax")]
    xml: bool,
    /// The file of ads (old, new, JSON or XML syntax, detected); `-` for standard
    /// input.
    file: String,
}

/// The output syntax of `format` and `query`.
#[derive(Clone, Copy, Debug)]
pub enum OutSyntax {
    /// `Name = expr` lines, blank line between ads.
    Old,
    /// One `[ ... ]` per line.
    New,
    /// A JSON array of objects.
    Json,
    /// An XML document of `<c>` ads.
    Xml,
}

impl OutSyntax {
    /// From the flags; old syntax when none is set.
    pub fn from_flags(new: bool, json: bool) -> OutSyntax {
        if json {
            OutSyntax::Json
        } else if new {
            OutSyntax::New
        } else {
            OutSyntax::Old
        }
    }
}

/// Writes ads in the given syntax.
pub fn write_ads<'a>(
    ads: impl Iterator<Item = &'a ClassAd>,
    syntax: OutSyntax,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut first = true;
    match syntax {
        OutSyntax::Old => {
            for ad in ads {
                if !first {
                    writeln!(out)?;
                }
                first = false;
                write!(out, "{}", unparse_ad_old(ad))?;
            }
        }
        OutSyntax::New => {
            for ad in ads {
                writeln!(out, "{}", unparse_ad(ad))?;
            }
        }
        OutSyntax::Json => {
            write!(out, "[")?;
            for ad in ads {
                write!(
                    out,
                    "{}\n{}",
                    if first { "" } else { "," },
                    unparse_ad_json(ad)
                )?;
                first = false;
            }
            writeln!(out, "\n]")?;
        }
        OutSyntax::Xml => write_ads_xml(ads, out)?,
    }
    Ok(())
}

/// Runs `classad format`.
pub fn run(a: FormatArgs) -> Result<ExitCode, Failure> {
    let ads = load_ads(&a.file)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let syntax = if a.xml {
        OutSyntax::Xml
    } else {
        OutSyntax::from_flags(a.new, a.json)
    };
    write_ads(ads.iter(), syntax, &mut out)
        .and_then(|_| out.flush())
        .map_err(output_error)?;
    Ok(ExitCode::SUCCESS)
}
