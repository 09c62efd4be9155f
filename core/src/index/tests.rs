use super::*;
use crate::policy::Policies;
use nl2sql_plan::test_fixtures::schema;

fn index() -> (SchemaIndex, BuiltinEmbedder) {
    let embedder = BuiltinEmbedder::default();
    let profile = DatasourceProfile {
        id: "chinook".into(),
        description: "A music store: artists, albums, tracks, customers, invoices and staff."
            .into(),
        examples: vec!["Which artist has the most albums?".into()],
        verified: vec![VerifiedPhrase {
            query_id: "top_reps".into(),
            reads: vec!["Employee".into(), "Customer".into()],
            text: "Which sales support agents look after the most customers?".into(),
        }],
        notes: Default::default(),
    };
    let mut values = ValueIndex::default();
    values.add(
        "chinook",
        vec![
            (
                "Artist".into(),
                "Name".into(),
                vec!["Iron Maiden".into(), "Queen".into()],
            ),
            ("Employee".into(), "LastName".into(), vec!["Peacock".into()]),
        ],
    );
    let index = pollster::block_on(SchemaIndex::build(
        &[(profile, schema())],
        values,
        &embedder,
    ))
    .expect("builds");
    (index, embedder)
}

#[test]
fn the_index_holds_every_kind_of_entry_and_refuses_another_embedder() {
    let (index, embedder) = index();
    let count = |k| index.entries().iter().filter(|e| e.kind == k).count();
    assert_eq!(count(EntryKind::Datasource), 1);
    assert_eq!(count(EntryKind::Example), 1);
    assert_eq!(count(EntryKind::Verified), 1);
    assert_eq!(count(EntryKind::Table), 6);
    assert!(count(EntryKind::Column) > 20);
    assert_eq!(index.embedder(), embedder.id());
    struct Other;
    impl Embedder for Other {
        fn id(&self) -> String {
            "other".into()
        }
        fn embed<'a>(
            &'a self,
            texts: &'a [String],
        ) -> crate::datasource::LocalBoxFuture<'a, Result<Vec<Vector>, crate::error::Error>>
        {
            Box::pin(async move { Ok(texts.iter().map(|_| vec![0.0; 4]).collect()) })
        }
    }
    let err = pollster::block_on(index.embed_query(&Other, "q")).expect_err("mixed embedders");
    assert!(err.message.contains("builtin"), "{err}");
}

#[test]
fn values_link_exactly_fuzzily_and_only_where_the_role_may_read() {
    let (index, _) = index();
    let policies = Policies::demo();
    let admin = policies.scope(&["admin".to_string()]);
    let hints = index
        .values()
        .link("albums by iron maiden", None, &admin, 5);
    assert_eq!(hints[0].render(), "Artist.Name = 'Iron Maiden'");
    assert_eq!(hints[0].matched, MatchKind::CaseInsensitive);
    let fuzzy = index.values().link("songs by Iron Maidn", None, &admin, 5);
    assert_eq!(fuzzy[0].value, "Iron Maiden");
    assert_eq!(fuzzy[0].matched, MatchKind::Fuzzy);
    // The analyst may not read Employee: its values are never linked.
    let analyst = policies.scope(&["analyst".to_string()]);
    assert!(index
        .values()
        .link("Peacock's customers", None, &analyst, 5)
        .is_empty());
    assert_eq!(
        index
            .values()
            .link("Peacock's customers", None, &admin, 5)
            .len(),
        1
    );
}

#[test]
fn verified_phrasings_vote_only_for_callers_who_may_read_their_tables() {
    let (index, embedder) = index();
    let policies = Policies::demo();
    let q = "Which support agents look after the most customers?";
    let signals = |role: &str| {
        let scope = policies.scope(&[role.to_string()]);
        let r = pollster::block_on(route(
            &index,
            &embedder,
            q,
            &scope,
            &RouteSettings::default(),
        ))
        .expect("routes");
        r.signals.into_iter().map(|s| s.name).collect::<Vec<_>>()
    };
    assert!(signals("admin").contains(&"verified".to_string()));
    // The analyst may not read Employee, which the verified query reads.
    assert!(!signals("analyst").contains(&"verified".to_string()));
    let e = index
        .entries()
        .iter()
        .find(|e| e.kind == EntryKind::Verified)
        .expect("a verified entry");
    assert_eq!(e.verified_query.as_deref(), Some("top_reps"));
}

#[test]
fn a_word_of_a_short_category_label_is_a_mention_of_it() {
    let mut values = ValueIndex::default();
    let column = |name: &str, vals: &[&str]| {
        (
            "tickets".to_string(),
            name.to_string(),
            vals.iter().map(|v| v.to_string()).collect::<Vec<_>>(),
        )
    };
    values.add(
        "support",
        vec![
            column(
                "category",
                &["Refund request", "Feature request", "Billing"],
            ),
            column("note", &["Please refund the duplicate order soon"]),
            column(
                "tag",
                &["plan basic", "plan family", "plan student", "plan pro"],
            ),
        ],
    );
    let policies = Policies::demo();
    let admin = policies.scope(&["admin".to_string()]);
    let hints = values.link("Who complained about refunds?", None, &admin, 5);
    let rendered: Vec<String> = hints.iter().map(ValueHint::render).collect();
    // Not the sentence that also says "refund".
    assert_eq!(rendered, ["tickets.category = 'Refund request'"]);
    assert_eq!(hints[0].matched, MatchKind::Word);
    assert_eq!(hints[0].span, "refunds");
    // A word in more than three labels of a column picks none of them.
    assert!(values.link("which plans sell", None, &admin, 5).is_empty());
}

#[test]
fn retrieval_hides_what_the_role_may_not_read_and_bridges_joins() {
    let (index, embedder) = index();
    let policies = Policies::demo();
    let analyst = policies.scope(&["analyst".to_string()]);
    let r = pollster::block_on(retrieve(
        &index,
        &embedder,
        "chinook",
        "Which employees support the most customers?",
        &analyst,
        &RetrieveSettings::default(),
        true,
    ))
    .expect("retrieves");
    assert!(!r.tables.iter().any(|t| t == "Employee"), "{r:?}");
    assert!(!r.columns.iter().any(|c| c.starts_with("Employee.")));
    // Artist and Track are two joins apart: Album comes along.
    let admin = policies.scope(&["admin".to_string()]);
    let r = pollster::block_on(retrieve(
        &index,
        &embedder,
        "chinook",
        "Which artist name has the longest track milliseconds?",
        &admin,
        &RetrieveSettings {
            table_k: 1,
            column_k: 2,
            ..RetrieveSettings::default()
        },
        true,
    ))
    .expect("retrieves");
    assert!(
        r.tables.contains(&"Artist".to_string()) && r.tables.contains(&"Track".to_string()),
        "{r:?}"
    );
    assert!(r.tables.contains(&"Album".to_string()), "{r:?}");
    let text = render(index.schema("chinook").expect("indexed"), &r);
    assert!(text.contains("AlbumId INTEGER -> Album.AlbumId"), "{text}");
}

#[test]
fn the_breaker_opens_after_five_failures_and_retries_after_thirty_seconds() {
    let breaker = CircuitBreaker::vector();
    for _ in 0..4 {
        breaker.record(false, 1_000);
    }
    assert!(breaker.allows(1_000));
    breaker.record(false, 1_000);
    assert!(breaker.is_open(1_000));
    assert!(breaker.is_open(30_999));
    // One trial call after the rest; others wait for its outcome.
    assert!(breaker.allows(31_000));
    assert!(!breaker.allows(31_000));
    // A failed trial opens it again at once.
    breaker.record(false, 31_000);
    assert!(breaker.is_open(31_001));
    assert!(breaker.allows(61_000));
    breaker.record(true, 61_000);
    assert!(breaker.allows(61_001) && breaker.allows(61_002));
}

#[test]
fn a_changed_schema_fails_warns_or_passes_as_the_policy_says() {
    let (index, _) = index();
    let same = schema();
    assert_eq!(index.check_schema(&same, MismatchPolicy::Fail), Ok(None));
    let mut tables = same.tables.clone();
    tables.pop();
    let changed = crate::schema::SchemaSnapshot::new("chinook", same.dialect, tables);
    let err = index
        .check_schema(&changed, MismatchPolicy::Fail)
        .expect_err("fails");
    assert_eq!(err.error_code, crate::error::ErrorCode::InvalidState);
    assert!(!err.is_retryable());
    let warning = index
        .check_schema(&changed, MismatchPolicy::Warn)
        .expect("warns");
    assert_eq!(
        warning.map(|w| w.code),
        Some(crate::error::ErrorCode::SchemaChanged)
    );
    assert_eq!(
        index.check_schema(&changed, MismatchPolicy::Ignore),
        Ok(None)
    );
}

/// A verified query's tables are named as the schema names them, so a deny pattern over a
/// schema hides its phrasings however its SQL spelt the table (bare where unique, or with
/// the connection's own schema).
#[test]
fn a_verified_query_s_tables_meet_the_policy_under_the_schema_s_names() {
    let mut snapshot = schema();
    let mut deals = snapshot.tables[0].clone();
    deals.name = "sales.deals".into();
    deals.schema = Some("sales".into());
    snapshot.tables.push(deals);
    let snapshot = snapshot.in_schema(Some("public".into()));
    let phrase = |id: &str, reads: &[&str]| VerifiedPhrase {
        query_id: id.into(),
        reads: reads.iter().map(|r| r.to_string()).collect(),
        text: format!("the {id} question"),
    };
    let profile = DatasourceProfile {
        id: "shop".into(),
        description: "A shop.".into(),
        examples: vec![],
        verified: vec![phrase("bare", &["deals"]), phrase("own", &["public.Album"])],
        notes: Default::default(),
    };
    let index = pollster::block_on(SchemaIndex::build(
        &[(profile, snapshot)],
        ValueIndex::default(),
        &BuiltinEmbedder::default(),
    ))
    .expect("builds");
    let reads = |id: &str| -> Vec<String> {
        let entry = index.entries().iter().find(|e| e.verified_query.as_deref() == Some(id));
        entry.map(|e| e.reads.clone()).unwrap_or_default()
    };
    assert_eq!(reads("bare"), ["sales.deals"]);
    assert_eq!(reads("own"), ["Album"]);
    let policies: Policies = serde_json::from_str(
        r#"{"roles": {"no_sales": {"allow": ["*"], "deny": ["shop.sales.*"]}}}"#,
    )
    .expect("policies");
    let scope = policies.scope(&["no_sales".to_string()]);
    let seen = index.visibility(&scope);
    let visible = |id: &str| {
        (index.entries().iter().zip(&seen))
            .any(|(e, v)| *v && e.verified_query.as_deref() == Some(id))
    };
    assert!(!visible("bare") && visible("own"));
}

/// An embedder that says where its dense part begins is laid out so: a feature every
/// entry shares stays exact when it says none is dense, and is kept as a byte otherwise.
#[test]
fn an_embedder_that_says_it_has_no_dense_part_is_scored_exactly() {
    struct Shared(Option<usize>);
    impl Embedder for Shared {
        fn id(&self) -> String {
            "shared".into()
        }
        fn embed<'a>(
            &'a self,
            texts: &'a [String],
        ) -> crate::datasource::LocalBoxFuture<'a, Result<Vec<Vector>, crate::error::Error>>
        {
            // Each text its own sparse feature, and two every text shares.
            let vectors = (0..texts.len())
                .map(|i| {
                    let mut v = vec![0.0f32; 64];
                    v[i % 62] = 0.9;
                    v[62] = 0.5;
                    v[63] = 0.123_456_79;
                    v
                })
                .collect();
            Box::pin(async move { Ok(vectors) })
        }
        fn dense_from(&self) -> Option<usize> {
            self.0
        }
    }
    let build = |embedder: &Shared| {
        let profile = DatasourceProfile {
            id: "chinook".into(),
            description: "A music store.".into(),
            examples: Vec::new(),
            verified: Vec::new(),
            notes: Default::default(),
        };
        let index = pollster::block_on(SchemaIndex::build(
            &[(profile, schema())],
            ValueIndex::default(),
            embedder,
        ))
        .expect("builds");
        (0..index.entries().len()).map(|i| index.vector(i)[63]).collect::<Vec<f32>>()
    };
    let exact = build(&Shared(Some(64)));
    assert!(exact.iter().all(|x| *x == 0.123_456_79), "{exact:?}");
    let decided = build(&Shared(None));
    assert!(decided.iter().any(|x| *x != 0.123_456_79), "{decided:?}");
    assert!(decided.iter().all(|x| (x - 0.123_456_79).abs() < 0.01), "{decided:?}");
}

/// A table name several schemas hold, named by the question: the schema the question names
/// too is the one added, not the first ones in order.
#[test]
fn a_name_several_schemas_hold_is_taken_from_the_schema_the_question_names() {
    use crate::schema::{Column, ColumnStats, SchemaSnapshot, Table, TypeCategory};
    let table = |schema: &str| Table {
        name: format!("{schema}.orders"),
        schema: Some(schema.into()),
        columns: ["order_id", "placed_on", "amount"]
            .into_iter()
            .map(|c| Column {
                name: c.into(),
                declared_type: "INTEGER".into(),
                category: TypeCategory::Number,
                nullable: true,
                primary_key_position: None,
                stats: ColumnStats::default(),
            })
            .collect(),
        foreign_keys: Vec::new(),
        row_count: 10,
        view: false,
        unread: None,
    };
    let tables = ["archive", "backup", "copy", "mirror", "retail"].map(table);
    let snapshot = SchemaSnapshot::new("shop", crate::datasource::Dialect::DuckDb, tables.into())
        .in_schema(Some("main".into()));
    let profile = DatasourceProfile {
        id: "shop".into(),
        description: "Orders, kept in several copies.".into(),
        examples: Vec::new(),
        verified: Vec::new(),
        notes: Default::default(),
    };
    let embedder = BuiltinEmbedder::default();
    let index = pollster::block_on(SchemaIndex::build(
        &[(profile, snapshot)],
        ValueIndex::default(),
        &embedder,
    ))
    .expect("builds");
    let r = pollster::block_on(retrieve(
        &index,
        &embedder,
        "shop",
        "How many retail orders were placed each month?",
        &Policies::read_all().scope(&[]),
        &RetrieveSettings {
            table_k: 1,
            column_tables: 0,
            ..RetrieveSettings::default()
        },
        true,
    ))
    .expect("retrieves");
    assert!(r.tables.contains(&"retail.orders".to_string()), "{r:?}");
    // The other copies are not added for their name alone (the table search chose one).
    let copies = r.tables.iter().filter(|t| t.ends_with(".orders")).count();
    assert!(copies <= 2, "{:?}", r.tables);
}
