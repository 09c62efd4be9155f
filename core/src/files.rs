//! Files a person adds in the page (or a web app hands the npm package): what each one is,
//! from its first bytes and its name, and how a set of them becomes one datasource. A
//! SQLite file opens in sql.js; a DuckDB file, or any number of CSV and Parquet files (one
//! table each, joinable), in DuckDB-WASM. Every file that cannot be one of these is refused
//! here, with the reason in plain words, before any database sees it.

use crate::error::{Error, ErrorCode};

/// The largest file the page opens. It is held three times over (the page's copy, which
/// restarts a stopped database; the database's own; DuckDB's table), and a page has a few GB.
pub const MAX_FILE_BYTES: usize = 100 * 1024 * 1024;

/// What a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A SQLite database (`SQLite format 3` header).
    Sqlite,
    /// A DuckDB database (`DUCK` at byte 8).
    DuckDb,
    /// An Apache Parquet file (`PAR1` at both ends).
    Parquet,
    /// Comma- (or tab-) separated text.
    Csv,
}

impl FileKind {
    /// The extension DuckDB-WASM registers the file under.
    pub fn extension(self) -> &'static str {
        match self {
            FileKind::Sqlite => "sqlite",
            FileKind::DuckDb => "duckdb",
            FileKind::Parquet => "parquet",
            FileKind::Csv => "csv",
        }
    }

    /// True when DuckDB-WASM opens it (everything but SQLite).
    pub fn needs_duckdb(self) -> bool {
        self != FileKind::Sqlite
    }
}

/// One file of a datasource, as the database loads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedFile {
    /// The file's own name, for messages.
    pub name: String,
    /// The table it becomes (CSV and Parquet), or the database's name (DuckDB).
    pub table: String,
    /// What it is.
    pub kind: FileKind,
}

/// A file that cannot become a datasource: DATASOURCE_UNREADABLE, in plain words.
fn unreadable(why: impl Into<String>) -> Error {
    Error::new(ErrorCode::DatasourceUnreadable, why)
}

/// Why a file of `size` bytes is not opened, when it is too large: the page checks a
/// picked file's size before reading it.
pub fn too_large(name: &str, size: u64) -> Option<Error> {
    (size > MAX_FILE_BYTES as u64).then(|| {
        unreadable(format!(
            "{name} is {} MB; the page opens files up to {} MB (the command line `nl2sql` reads larger ones from disk)",
            size.div_ceil(1024 * 1024),
            MAX_FILE_BYTES / (1024 * 1024)
        ))
    })
}

/// What `name` holds, from its bytes (the name decides only between text formats and says
/// which format a file was meant to be).
pub fn sniff(name: &str, bytes: &[u8]) -> Result<FileKind, Error> {
    let fail = |why: String| Err(unreadable(format!("{name} {why}")));
    if bytes.is_empty() {
        return fail("is empty (0 bytes)".into());
    }
    if let Some(e) = too_large(name, bytes.len() as u64) {
        return Err(e);
    }
    let extension = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    if bytes.starts_with(b"SQLite format 3\0") {
        return Ok(FileKind::Sqlite);
    }
    if bytes.get(8..12) == Some(b"DUCK") {
        return Ok(FileKind::DuckDb);
    }
    if bytes.starts_with(b"PAR1") {
        if bytes.len() < 12 || !bytes.ends_with(b"PAR1") {
            return fail(
                "is a Parquet file cut short: it does not end with Parquet's closing PAR1 marker"
                    .into(),
            );
        }
        return Ok(FileKind::Parquet);
    }
    match extension.as_str() {
        "parquet" | "pq" => fail("is not a Parquet file: it does not begin with PAR1".into()),
        "duckdb" | "ddb" => fail("is not a DuckDB database: it has no DuckDB header".into()),
        "csv" | "tsv" | "txt" => {
            let head = &bytes[..bytes.len().min(64 * 1024)];
            if head.contains(&0) {
                return fail("is not a CSV file: it holds binary data".into());
            }
            check_csv_shape(name, bytes, extension == "tsv")?;
            Ok(FileKind::Csv)
        }
        // Anything else is offered to SQLite, which says plainly if it is not a database.
        _ => Ok(FileKind::Sqlite),
    }
}

/// How much of a CSV file the shape check reads: enough for any file typed by hand or
/// exported from a spreadsheet, and a few milliseconds on the page's thread at most.
const CSV_CHECK_BYTES: usize = 8 * 1024 * 1024;

/// Every row of a CSV file must have as many fields as its first (header) row. DuckDB's
/// reader would otherwise guess: a ragged file quietly becomes one wide column, or
/// columns padded with NULLs. A field that begins with a quote may hold delimiters, line
/// breaks and doubled quotes; a quote inside an unquoted field (`5" screen`) is text.
fn check_csv_shape(name: &str, bytes: &[u8], tab: bool) -> Result<(), Error> {
    let text = &bytes[..bytes.len().min(CSV_CHECK_BYTES)];
    let whole = text.len() == bytes.len();
    let delimiter = if tab { b'\t' } else { guess_delimiter(text) };
    let mut shape = CsvShape {
        name,
        line: 1,
        record_line: 1,
        fields: 1,
        header: None,
    };
    // Within a quoted field; just after its closing quote (a quote next is an escape);
    // at the start of a field; whether the record has anything in it.
    let (mut quoted, mut closed, mut field_start, mut empty) = (false, false, true, true);
    let mut quote_line = 1;
    for &b in text {
        if b == b'"' {
            if quoted {
                (quoted, closed) = (false, true);
            } else if closed || field_start {
                (quoted, closed) = (true, false);
                quote_line = shape.line;
            }
            (field_start, empty) = (false, false);
            continue;
        }
        closed = false;
        match b {
            b'\n' => {
                shape.line += 1;
                if !quoted {
                    if !empty {
                        shape.end_record()?;
                    }
                    (field_start, empty) = (true, true);
                    shape.record_line = shape.line;
                }
            }
            b'\r' => {}
            _ if b == delimiter && !quoted => {
                shape.fields += 1;
                (field_start, empty) = (true, false);
            }
            _ => (field_start, empty) = (false, false),
        }
    }
    // The last record counts only when the file ends within what was read.
    if whole {
        if quoted {
            return Err(unreadable(format!(
                "{name} is not a regular CSV file: the quote (\") opened on line {quote_line} is never closed"
            )));
        }
        if !empty {
            shape.end_record()?;
        }
    }
    Ok(())
}

/// Where the CSV check is: the record being read and the header's width.
struct CsvShape<'a> {
    name: &'a str,
    line: usize,
    record_line: usize,
    fields: usize,
    /// The header's line and number of fields.
    header: Option<(usize, usize)>,
}

impl CsvShape<'_> {
    fn end_record(&mut self) -> Result<(), Error> {
        let (header_line, expected) = *self.header.get_or_insert((self.record_line, self.fields));
        if self.fields != expected {
            return Err(unreadable(format!(
                "{} is not a regular CSV file: line {} has {} fields where the header (line {header_line}) has {expected}; every row needs the same number of columns",
                self.name, self.record_line, self.fields
            )));
        }
        self.fields = 1;
        Ok(())
    }
}

/// The delimiter the first line uses most, of comma, tab, semicolon and bar.
fn guess_delimiter(text: &[u8]) -> u8 {
    let first = text.split(|&b| b == b'\n').next().unwrap_or_default();
    let mut best = (0, b',');
    for candidate in [b',', b'\t', b';', b'|'] {
        let count = first.iter().filter(|&&b| b == candidate).count();
        if count > best.0 {
            best = (count, candidate);
        }
    }
    best.1
}

/// How `files` (name, bytes) become one datasource: a SQLite or DuckDB file alone, or CSV
/// and Parquet files, one table each, under names made from the file names.
pub fn plan(files: &[(&str, &[u8])]) -> Result<Vec<PlannedFile>, Error> {
    if files.is_empty() {
        return Err(unreadable("no file was given"));
    }
    let mut planned = Vec::with_capacity(files.len());
    for (name, bytes) in files {
        let kind = sniff(name, bytes)?;
        planned.push(PlannedFile {
            name: name.to_string(),
            table: table_name(name),
            kind,
        });
    }
    if planned.len() > 1 {
        if let Some(alone) = planned
            .iter()
            .find(|p| matches!(p.kind, FileKind::Sqlite | FileKind::DuckDb))
        {
            return Err(unreadable(format!(
                "{} is a database of its own: add it alone (several files make one datasource only when each is a CSV or Parquet file)",
                alone.name
            )));
        }
    }
    for (i, p) in planned.iter().enumerate() {
        if let Some(other) = planned[..i]
            .iter()
            .find(|o| o.table.eq_ignore_ascii_case(&p.table))
        {
            return Err(unreadable(format!(
                "{} and {} would both be table {}: rename one",
                other.name, p.name, p.table
            )));
        }
    }
    Ok(planned)
}

/// A table name from a file name: `Orders 2024.csv` → `orders_2024`; one that would not
/// start with a letter starts with `t_`.
pub fn table_name(file_name: &str) -> String {
    let stem = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    let stem = stem.split_once('.').map_or(stem, |(s, _)| s);
    let mut name = String::with_capacity(stem.len());
    for c in stem.chars() {
        let c = if c.is_ascii_alphanumeric() {
            c.to_ascii_lowercase()
        } else {
            '_'
        };
        if !(c == '_' && name.ends_with('_')) {
            name.push(c);
        }
    }
    let name: String = name.trim_matches('_').chars().take(60).collect();
    if name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        name
    } else {
        format!("t_{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_is_known_by_its_bytes() {
        let mut sqlite = b"SQLite format 3\0".to_vec();
        sqlite.extend([0; 100]);
        assert_eq!(sniff("a.db", &sqlite), Ok(FileKind::Sqlite));
        let mut duck = vec![0; 8];
        duck.extend(b"DUCK");
        duck.extend([0; 100]);
        assert_eq!(sniff("x.bin", &duck), Ok(FileKind::DuckDb));
        let parquet = b"PAR1\x15\x00\x15\x1c\x15PAR1";
        assert_eq!(sniff("data.bin", parquet), Ok(FileKind::Parquet));
        assert_eq!(sniff("orders.CSV", b"a,b\n1,2\n"), Ok(FileKind::Csv));
        assert_eq!(sniff("notes.txt", b"a\tb\n1\t2\n"), Ok(FileKind::Csv));
        // An unknown extension goes to SQLite, which names the problem itself.
        assert_eq!(sniff("mystery", b"hello"), Ok(FileKind::Sqlite));
    }

    #[test]
    fn bad_files_are_refused_in_plain_words() {
        let refused = |name: &str, bytes: &[u8]| match sniff(name, bytes) {
            Err(e) => e.message,
            Ok(kind) => panic!("{name} was taken as {kind:?}"),
        };
        assert_eq!(refused("empty.csv", b""), "empty.csv is empty (0 bytes)");
        assert!(refused("cut.parquet", b"PAR1\x15\x00\x15").contains("cut short"));
        assert!(refused("fake.parquet", b"a,b\n1,2\n").contains("does not begin with PAR1"));
        assert!(refused("photo.csv", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").contains("binary data"));
        assert!(refused("x.duckdb", b"not a database at all").contains("no DuckDB header"));
        let huge = vec![b'a'; MAX_FILE_BYTES + 1];
        let message = refused("big.csv", &huge);
        assert!(
            message.contains("101 MB") && message.contains("up to 100 MB"),
            "{message}"
        );
    }

    #[test]
    fn ragged_csv_rows_are_refused_with_their_line() {
        let shape = |text: &str| sniff("t.csv", text.as_bytes()).map_err(|e| e.message);
        assert_eq!(shape("a,b,c\n1,2,3\n\n4,5,6"), Ok(FileKind::Csv));
        // Quotes may hold delimiters and line breaks; CRLF endings are fine.
        assert_eq!(
            shape("a,b\r\n\"x, y\",\"two\nlines\"\r\n\"\"\"q\"\"\",3\r\n"),
            Ok(FileKind::Csv)
        );
        assert_eq!(shape("a;b\n1;2,5\n"), Ok(FileKind::Csv));
        let short = shape("a,b,c\n1,2,3\n4,5\n7,8,9\n").unwrap_err();
        assert!(
            short.contains("line 3 has 2 fields where the header (line 1) has 3"),
            "{short}"
        );
        let long = shape("a,b\n1,2\n3,4,5,6").unwrap_err();
        assert!(long.contains("line 3 has 4 fields"), "{long}");
        let open = shape("a,b\n1,2\n3,\"never closed\n4,5\n").unwrap_err();
        assert!(open.contains("opened on line 3 is never closed"), "{open}");
        // A quote inside an unquoted field is text; a doubled quote in a quoted one too.
        assert_eq!(
            shape("item,size\nscreen,5\" wide\n\"say \"\"hi\"\", x\",2\n"),
            Ok(FileKind::Csv)
        );
        // Blank lines before the header: the header's own line is named.
        let late = shape("\n\na,b\n1,2,3\n").unwrap_err();
        assert!(
            late.contains("line 4 has 3 fields where the header (line 3) has 2"),
            "{late}"
        );
        let tsv = sniff("t.tsv", b"a\tb\n1\t2\t3\n").unwrap_err().message;
        assert!(tsv.contains("line 2 has 3 fields"), "{tsv}");
    }

    #[test]
    fn several_files_are_tables_of_one_datasource() {
        let csv: &[u8] = b"a\n1\n";
        let parquet: &[u8] = b"PAR1\x15\x00\x15\x1c\x15PAR1";
        let planned = plan(&[("Orders 2024.csv", csv), ("customers.parquet", parquet)]);
        assert_eq!(
            planned.map(|p| p.into_iter().map(|f| (f.table, f.kind)).collect::<Vec<_>>()),
            Ok(vec![
                ("orders_2024".to_string(), FileKind::Csv),
                ("customers".to_string(), FileKind::Parquet)
            ])
        );
        let clash = plan(&[("a.csv", csv), ("A.parquet", parquet)]);
        assert!(clash.is_err_and(|e| e.message.contains("would both be table a")));
        let sqlite = b"SQLite format 3\0....";
        let mixed = plan(&[("a.csv", csv), ("shop.sqlite", sqlite)]);
        assert!(mixed.is_err_and(|e| e
            .message
            .starts_with("shop.sqlite is a database of its own")));
        assert!(plan(&[]).is_err());
    }

    #[test]
    fn table_names_are_plain_identifiers() {
        assert_eq!(table_name("My Shop.csv"), "my_shop");
        assert_eq!(table_name("2024-sales.parquet"), "t_2024_sales");
        assert_eq!(table_name("dir/üml--x.csv.gz"), "ml_x");
        assert_eq!(table_name("....csv"), "t_");
    }
}
