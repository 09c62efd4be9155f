//! A generated database of 500 tables (about 10,000 columns) for the large-schema benchmark:
//! an enterprise's systems side by side, twenty-five business areas of twenty tables each,
//! with the names, keys and columns such systems have. Deterministic: the same file every
//! time (no randomness but a hash of the names).
//!
//! Each table has an `id` key; a table joins the tables its name builds on
//! (`sales_order_line` → `sales_order`), one or two other tables of its area, and the few
//! tables every area shares (customers, employees, products, suppliers, currencies); the
//! rest of its columns come from a pool of the attributes such tables carry, chosen by its
//! area and a hash of its name. Rows: twenty to sixty per table, values from small
//! vocabularies so text columns have the sample values introspection reads.

#[cfg(not(target_arch = "wasm32"))]
use rusqlite::{params_from_iter, Connection};
#[cfg(not(target_arch = "wasm32"))]
use std::path::Path;

#[rustfmt::skip]
/// The business areas and their tables, in the order each area's tables are created (a
/// table may reference those before it).
pub const AREAS: [(&str, [&str; 20]); 25] = [
    ("sales", [
        "sales_region", "sales_territory", "sales_rep", "sales_channel", "sales_price_list",
        "sales_price_list_item", "sales_pipeline_stage", "sales_opportunity", "sales_quote",
        "sales_quote_line", "sales_order", "sales_order_line", "sales_invoice",
        "sales_return", "sales_return_line", "sales_target", "sales_commission",
        "sales_discount", "sales_forecast", "sales_contract",
    ]),
    ("purchasing", [
        "supplier", "supplier_contact", "supplier_address", "supplier_certificate",
        "supplier_rating", "supplier_contract", "purchase_category", "purchase_budget",
        "purchase_requisition", "purchase_requisition_line", "rfq", "rfq_response",
        "purchase_order", "purchase_order_line", "purchase_approval", "purchase_receipt",
        "purchase_receipt_line", "purchase_return", "supplier_invoice", "supplier_payment",
    ]),
    ("inventory", [
        "product_category", "unit_of_measure", "product", "product_variant",
        "product_attribute", "product_price", "product_image", "product_bundle",
        "product_bundle_item", "warehouse", "warehouse_zone", "warehouse_bin", "lot",
        "serial_number", "stock_level", "stock_movement", "stock_adjustment", "stock_count",
        "stock_count_line", "reorder_rule",
    ]),
    ("shipping", [
        "carrier", "carrier_service", "shipping_zone", "shipping_rate", "shipment",
        "shipment_line", "package", "package_item", "tracking_event", "delivery_route",
        "delivery_stop", "proof_of_delivery", "freight_invoice", "customs_declaration",
        "pickup_request", "return_label", "dock_appointment", "vehicle_load",
        "shipping_exception", "consignment",
    ]),
    ("hr", [
        "department", "job_title", "position", "employee", "employment_contract",
        "leave_type", "leave_request", "leave_balance", "attendance_record", "shift",
        "shift_assignment", "performance_review", "review_goal", "training_course",
        "training_enrollment", "skill", "employee_skill", "job_posting", "job_application",
        "interview",
    ]),
    ("payroll", [
        "payroll_calendar", "payroll_run", "salary_structure", "salary_component",
        "payslip", "payslip_line", "tax_bracket", "tax_withholding", "bonus", "deduction",
        "garnishment", "pension_plan", "pension_contribution", "benefit_plan",
        "benefit_enrollment", "overtime_entry", "timesheet", "expense_claim",
        "expense_claim_line", "bank_account",
    ]),
    ("finance", [
        "currency", "exchange_rate", "fiscal_year", "fiscal_period", "gl_account",
        "cost_center", "profit_center", "journal_entry", "journal_line", "budget",
        "budget_line", "bank_statement", "bank_statement_line", "payment",
        "payment_allocation", "receivable", "payable", "tax_code", "tax_return",
        "credit_note",
    ]),
    ("crm", [
        "customer_segment", "customer", "customer_address", "customer_contact",
        "customer_note", "account_manager", "lead_source", "lead", "customer_interaction",
        "customer_complaint", "loyalty_program", "loyalty_member", "loyalty_transaction",
        "customer_survey", "survey_answer", "referral", "customer_tag", "customer_tag_link",
        "churn_event", "campaign_response",
    ]),
    ("marketing", [
        "campaign", "campaign_channel", "ad_group", "ad", "ad_impression", "ad_click",
        "email_campaign", "email_send", "email_open", "landing_page", "landing_page_visit",
        "promotion", "coupon", "coupon_redemption", "newsletter", "newsletter_subscriber",
        "social_post", "influencer", "marketing_event", "event_registration",
    ]),
    ("support", [
        "support_team", "support_agent", "support_queue", "ticket_category",
        "ticket_priority", "sla_policy", "ticket", "ticket_message", "ticket_assignment",
        "ticket_tag", "sla_breach", "escalation", "knowledge_article", "article_feedback",
        "chat_session", "chat_message", "call_log", "satisfaction_rating",
        "canned_response", "maintenance_contract",
    ]),
    ("manufacturing", [
        "work_center", "machine", "machine_downtime", "bill_of_materials", "bom_line",
        "routing", "routing_step", "work_order", "work_order_operation", "production_batch",
        "production_output", "scrap_record", "material_issue", "capacity_plan",
        "production_schedule", "tooling", "tool_usage", "setup_time", "yield_record",
        "operator_log",
    ]),
    ("quality", [
        "inspection_plan", "inspection_characteristic", "inspection", "inspection_result",
        "test_method", "gauge", "calibration_record", "sample", "sample_result",
        "defect_type", "defect", "nonconformance", "corrective_action",
        "preventive_action", "quality_audit", "audit_finding", "certificate_of_analysis",
        "deviation", "quality_hold", "supplier_audit",
    ]),
    ("projects", [
        "project", "project_phase", "project_task", "task_dependency", "milestone",
        "project_member", "time_entry", "project_budget", "project_expense", "project_risk",
        "issue_log", "change_request", "deliverable", "project_document",
        "resource_allocation", "project_status_report", "stakeholder", "project_invoice",
        "project_rate", "sprint",
    ]),
    ("assets", [
        "asset_category", "asset_location", "asset", "asset_assignment",
        "depreciation_schedule", "depreciation_entry", "maintenance_plan",
        "maintenance_task", "maintenance_log", "spare_part", "spare_part_usage",
        "asset_disposal", "asset_transfer", "lease", "lease_payment", "insurance_policy",
        "insurance_claim", "meter_reading", "warranty", "asset_inspection",
    ]),
    ("fleet", [
        "vehicle_type", "vehicle", "driver", "driver_license", "driver_shift", "route_plan",
        "trip", "trip_leg", "fuel_purchase", "vehicle_service", "service_item",
        "vehicle_incident", "toll_charge", "parking_fee", "vehicle_reservation",
        "telematics_reading", "tire_change", "odometer_log", "vehicle_inspection",
        "traffic_fine",
    ]),
    ("it", [
        "system_role", "user_account", "role_assignment", "access_request", "it_asset",
        "software_license", "license_assignment", "server", "server_metric",
        "network_device", "configuration_item", "ci_relationship", "service_request",
        "incident", "problem", "change_ticket", "backup_job", "backup_result",
        "vulnerability", "patch_deployment",
    ]),
    ("legal", [
        "legal_counsel", "legal_case", "case_party", "case_document", "hearing",
        "legal_contract", "contract_clause", "contract_party", "contract_renewal", "nda",
        "intellectual_property", "trademark", "patent", "litigation_cost", "legal_opinion",
        "regulatory_filing", "power_of_attorney", "dispute", "settlement", "legal_hold",
    ]),
    ("compliance", [
        "regulation", "compliance_requirement", "control", "control_test",
        "policy_document", "policy_acknowledgement", "risk", "risk_assessment",
        "risk_mitigation", "incident_report", "whistleblower_report", "audit_plan",
        "audit_engagement", "data_subject_request", "consent_record", "retention_rule",
        "sanction_screening", "due_diligence", "training_attestation",
        "compliance_exception",
    ]),
    ("retail", [
        "store", "store_department", "store_employee", "pos_terminal", "pos_transaction",
        "pos_transaction_line", "cash_drawer", "cash_count", "store_inventory", "planogram",
        "shelf", "price_tag", "store_promotion", "footfall_count", "store_visit",
        "gift_card", "gift_card_transaction", "layaway", "store_return", "store_target",
    ]),
    ("ecommerce", [
        "web_customer", "web_address", "web_session", "page_view", "search_query",
        "search_result_click", "cart", "cart_item", "wishlist", "wishlist_item",
        "web_order", "web_order_line", "checkout_step", "payment_attempt", "fraud_check",
        "product_review", "review_vote", "product_recommendation", "abandoned_cart_email",
        "affiliate",
    ]),
    ("subscriptions", [
        "subscription_plan", "plan_feature", "plan_price", "billing_cycle", "subscription",
        "subscription_item", "subscription_change", "trial", "usage_meter", "usage_record",
        "renewal", "cancellation_reason", "cancellation", "dunning_attempt", "entitlement",
        "add_on", "subscription_discount", "seat_assignment", "subscription_pause",
        "upgrade_offer",
    ]),
    ("billing", [
        "billing_account", "billing_contact", "payment_method", "tax_rate", "billing_run",
        "invoice", "invoice_line", "charge", "refund", "dispute_case", "credit_memo",
        "statement", "statement_line", "late_fee", "payment_plan", "installment",
        "write_off", "collection_case", "collection_action", "price_adjustment",
    ]),
    ("facilities", [
        "facility", "building", "floor", "room", "room_booking", "desk", "desk_booking",
        "visitor", "visitor_badge", "cleaning_schedule", "cleaning_task", "energy_reading",
        "utility_bill", "work_request", "work_request_comment", "access_card", "access_log",
        "parking_space", "parking_permit", "space_survey",
    ]),
    ("research", [
        "research_grant", "research_project", "lab", "lab_equipment", "lab_booking",
        "protocol", "protocol_step", "experiment", "experiment_run", "hypothesis",
        "reagent", "reagent_lot", "observation", "measurement", "grant_report",
        "publication", "publication_author", "patent_application", "prototype",
        "prototype_test",
    ]),
    ("planning", [
        "distribution_center", "planning_scenario", "demand_forecast", "forecast_line",
        "demand_signal", "supply_plan", "supply_plan_line", "transfer_order",
        "transfer_order_line", "safety_stock", "lead_time", "sourcing_rule", "allocation",
        "backorder", "replenishment_order", "inventory_snapshot", "scenario_result",
        "capacity_constraint", "sop_meeting", "kpi_measure",
    ]),
];

/// Tables every area may reference, as real systems share them.
const SHARED: [&str; 6] = [
    "customer",
    "employee",
    "product",
    "supplier",
    "currency",
    "warehouse",
];

/// A column's kind, which decides its declared type and its values.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Name,
    Code,
    Status,
    Label,
    Note,
    Money,
    Count,
    Ratio,
    Date,
    Stamp,
    Flag,
    Email,
    Place,
    Level,
}

#[rustfmt::skip]
/// The attributes tables carry, each with its kind; a table takes about sixteen.
pub const ATTRIBUTES: [(&str, Kind); 64] = [
    ("name", Kind::Name), ("code", Kind::Code), ("title", Kind::Name),
    ("description", Kind::Note), ("status", Kind::Status), ("type", Kind::Label),
    ("category", Kind::Label), ("priority", Kind::Level), ("notes", Kind::Note),
    ("created_at", Kind::Stamp), ("updated_at", Kind::Stamp), ("approved_at", Kind::Stamp),
    ("start_date", Kind::Date), ("end_date", Kind::Date), ("due_date", Kind::Date),
    ("effective_date", Kind::Date), ("amount", Kind::Money), ("total_amount", Kind::Money),
    ("unit_price", Kind::Money), ("cost", Kind::Money), ("tax_amount", Kind::Money),
    ("discount_amount", Kind::Money), ("balance", Kind::Money), ("budget_amount", Kind::Money),
    ("quantity", Kind::Count), ("line_number", Kind::Count), ("sequence_no", Kind::Count),
    ("duration_minutes", Kind::Count), ("headcount", Kind::Count), ("version", Kind::Count),
    ("score", Kind::Ratio), ("rating", Kind::Level), ("percentage", Kind::Ratio),
    ("weight_kg", Kind::Ratio), ("distance_km", Kind::Ratio), ("hours", Kind::Ratio),
    ("is_active", Kind::Flag), ("is_approved", Kind::Flag), ("is_deleted", Kind::Flag),
    ("email", Kind::Email), ("phone", Kind::Code), ("city", Kind::Place),
    ("country", Kind::Place), ("region", Kind::Place), ("reference_number", Kind::Code),
    ("external_id", Kind::Code), ("source", Kind::Label), ("channel", Kind::Label),
    ("reason", Kind::Label), ("outcome", Kind::Status), ("severity", Kind::Level),
    ("risk_level", Kind::Level), ("frequency", Kind::Label), ("method", Kind::Label),
    ("owner_name", Kind::Name), ("approved_by", Kind::Name), ("comment", Kind::Note),
    ("period", Kind::Code), ("fiscal_year", Kind::Count), ("quarter", Kind::Code),
    ("completed_at", Kind::Stamp), ("closed_at", Kind::Stamp), ("opened_at", Kind::Stamp),
    ("expires_at", Kind::Stamp),
];

/// Words that text values are made of, by kind.
const NAMES: [&str; 12] = [
    "Atlas", "Beacon", "Cedar", "Delta", "Ember", "Falcon", "Granite", "Harbor", "Iris", "Juniper",
    "Keystone", "Lumen",
];
const STATUSES: [&str; 5] = ["open", "pending", "approved", "closed", "cancelled"];
const LABELS: [&str; 6] = [
    "standard",
    "internal",
    "external",
    "special",
    "recurring",
    "one-off",
];
const LEVELS: [&str; 4] = ["low", "medium", "high", "critical"];
const PLACES: [&str; 8] = [
    "Berlin", "Lisbon", "Toronto", "Osaka", "Nairobi", "Lima", "Oslo", "Denver",
];

/// Every table name, area by area.
pub fn table_names() -> Vec<&'static str> {
    AREAS
        .iter()
        .flat_map(|(_, tables)| tables.iter().copied())
        .collect()
}

/// FNV-1a of a name: the generator's only source of variety. Reduced in 64 bits before any
/// cast, so the page's 32-bit `usize` generates the same schema.
pub fn hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// One table's design: the tables it references (in column order) and its attributes.
pub struct Design {
    /// The table's name.
    pub name: &'static str,
    /// The tables its foreign keys reference, one `<table>_id` column each.
    pub references: Vec<&'static str>,
    /// Its other columns and their kinds, in column order after the references.
    pub attributes: Vec<(&'static str, Kind)>,
}

/// Every table's design.
pub fn designs() -> Vec<Design> {
    let all = table_names();
    let mut out = Vec::with_capacity(all.len());
    for (area, tables) in &AREAS {
        for (i, &name) in tables.iter().enumerate() {
            let h = hash(name);
            let earlier = &tables[..i];
            let mut references: Vec<&'static str> = Vec::new();
            // The table its name builds on: `sales_order_line` → `sales_order`.
            let mut stem = name;
            while let Some(cut) = stem.rfind('_') {
                stem = &stem[..cut];
                if let Some(parent) = all.iter().find(|t| **t == stem) {
                    references.push(parent);
                    break;
                }
            }
            // One or two earlier tables of its area.
            for k in 0..(1 + h % 2) {
                if earlier.is_empty() {
                    break;
                }
                let pick = earlier[((h >> (8 * k + 3)) % earlier.len() as u64) as usize];
                if !references.contains(&pick) {
                    references.push(pick);
                }
            }
            // A shared table, for about half of them.
            if h % 5 < 3 {
                let shared = SHARED[((h >> 20) % SHARED.len() as u64) as usize];
                if shared != name && !references.contains(&shared) && !tables.contains(&shared) {
                    references.push(shared);
                }
            }
            let wanted = 13 + (h % 7) as usize;
            let mut attributes: Vec<(&'static str, Kind)> = vec![ATTRIBUTES[0]];
            // An odd stride visits every attribute before it repeats one.
            let stride = 1 + 2 * ((h >> 40) as usize % 31) + area.len() % 2 * 2;
            let mut at = ((h >> 32) % ATTRIBUTES.len() as u64) as usize;
            while attributes.len() < wanted {
                at = (at + stride) % ATTRIBUTES.len();
                let a = ATTRIBUTES[at];
                if !attributes.iter().any(|(n, _)| *n == a.0) {
                    attributes.push(a);
                }
            }
            out.push(Design {
                name,
                references,
                attributes,
            });
        }
    }
    out
}

/// One generated value.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// An integer.
    Int(i64),
    /// A real number.
    Real(f64),
    /// A text (dates and times included, as SQLite keeps them).
    Text(String),
}

#[cfg(not(target_arch = "wasm32"))]
impl From<Cell> for rusqlite::types::Value {
    fn from(cell: Cell) -> Self {
        match cell {
            Cell::Int(n) => n.into(),
            Cell::Real(x) => x.into(),
            Cell::Text(t) => t.into(),
        }
    }
}

/// Writes the database to `path` (replacing a file already there) and returns how many
/// tables and columns it holds.
#[cfg(not(target_arch = "wasm32"))]
pub fn generate(path: &Path) -> rusqlite::Result<(usize, usize)> {
    let _ = std::fs::remove_file(path);
    let mut conn = Connection::open(path)?;
    // Rows go in area by area; every reference points at ids 1 to 20, which every table
    // has once all are filled.
    conn.pragma_update(None, "foreign_keys", false)?;
    let tx = conn.transaction()?;
    let designs = designs();
    let mut columns = 0;
    for d in &designs {
        let mut defs = vec!["id INTEGER PRIMARY KEY".to_string()];
        for r in &d.references {
            defs.push(format!("{r}_id INTEGER REFERENCES {r}(id)"));
        }
        for (name, kind) in &d.attributes {
            defs.push(format!("{name} {}", declared(*kind)));
        }
        columns += defs.len();
        tx.execute_batch(&format!("CREATE TABLE {} ({})", d.name, defs.join(", ")))?;
    }
    for d in &designs {
        let h = hash(d.name);
        let rows = 20 + (h % 41) as usize;
        let width = 1 + d.references.len() + d.attributes.len();
        let marks = vec!["?"; width].join(", ");
        let mut insert = tx.prepare(&format!("INSERT INTO {} VALUES ({marks})", d.name))?;
        for row in 0..rows {
            let mut values: Vec<rusqlite::types::Value> = vec![(row as i64 + 1).into()];
            for (k, _) in d.references.iter().enumerate() {
                // Referenced tables have at least twenty rows.
                values.push((((row * 7 + k * 3) % 20) as i64 + 1).into());
            }
            for (i, (name, kind)) in d.attributes.iter().enumerate() {
                values.push(value(*kind, name, row, h.wrapping_add(i as u64)).into());
            }
            insert.execute(params_from_iter(values))?;
        }
    }
    drop(tx.commit());
    Ok((designs.len(), columns))
}

/// The type a column of `kind` is declared with.
pub fn declared(kind: Kind) -> &'static str {
    match kind {
        Kind::Name
        | Kind::Code
        | Kind::Status
        | Kind::Label
        | Kind::Note
        | Kind::Email
        | Kind::Place
        | Kind::Level => "TEXT",
        Kind::Money => "NUMERIC(12,2)",
        Kind::Count | Kind::Flag => "INTEGER",
        Kind::Ratio => "REAL",
        Kind::Date => "DATE",
        Kind::Stamp => "DATETIME",
    }
}

/// The value of column `column` (of `kind`) in row `row` of a table seeded `seed`.
pub fn value(kind: Kind, column: &str, row: usize, seed: u64) -> Cell {
    let n = row as u64 * 2_654_435_761 + seed;
    let pick = |words: &[&str]| words[(n % words.len() as u64) as usize].to_string();
    match kind {
        Kind::Name => Cell::Text(format!("{} {}", pick(&NAMES), row + 1)),
        Kind::Code => Cell::Text(format!(
            "{}-{:04}",
            &column[..2.min(column.len())].to_uppercase(),
            n % 10_000
        )),
        Kind::Status => Cell::Text(pick(&STATUSES)),
        Kind::Label => Cell::Text(pick(&LABELS)),
        Kind::Level => Cell::Text(pick(&LEVELS)),
        Kind::Place => Cell::Text(pick(&PLACES)),
        Kind::Note => Cell::Text(format!("{} review of item {}", pick(&LABELS), row + 1)),
        Kind::Email => Cell::Text(format!(
            "{}{}@example.com",
            pick(&NAMES).to_lowercase(),
            row + 1
        )),
        Kind::Money => Cell::Real((n % 100_000) as f64 / 100.0),
        Kind::Count => Cell::Int((n % 200) as i64),
        Kind::Flag => Cell::Int((n % 2) as i64),
        Kind::Ratio => Cell::Real((n % 1_000) as f64 / 10.0),
        Kind::Date => Cell::Text(format!(
            "20{:02}-{:02}-{:02}",
            20 + n % 6,
            1 + n % 12,
            1 + n % 28
        )),
        Kind::Stamp => Cell::Text(format!(
            "20{:02}-{:02}-{:02} {:02}:{:02}:00",
            20 + n % 6,
            1 + n % 12,
            1 + n % 28,
            n % 24,
            n % 60
        )),
    }
}
