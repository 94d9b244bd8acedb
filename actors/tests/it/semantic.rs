//! The digest ranked by meaning as well as by words, with the real all-MiniLM-L6-v2 model
//! (`PAPERTIDE_TEST_EMBED_MODEL_DIR`): a paper on the topic in other words is found and said to
//! be, a paper that only shares a word ranks below it, a week with nothing on the topic sends
//! nothing however close the vectors, and a paper whose vector is not made yet is still ranked
//! by its words.

use std::path::PathBuf;
use std::sync::Arc;

use actors::Digester;
use chrono::{DateTime, Duration, TimeZone, Utc};
use engine::account::Preferences;
use engine::digest::{DigestKind, MIN_RELEVANCE};
use engine::embedding::{embedding_text, text_hash};
use engine::mail::MailContext;
use engine::paper::{AbstractSection, Paper, Source};
use index::PaperIndex;
use store::{NewAccount, Store, StoredVector, User};
use uuid::Uuid;

fn model() -> Arc<embed::Embedder> {
    let dir = PathBuf::from(std::env::var("PAPERTIDE_TEST_EMBED_MODEL_DIR").expect("PAPERTIDE_TEST_EMBED_MODEL_DIR names the fetched model"));
    Arc::new(embed::Embedder::load(&dir).expect("the model loads"))
}

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 23, 9, 0, 0).single().expect("a time")
}

fn paper(doi: &str, title: &str, abstract_text: &str) -> Paper {
    let mut paper = Paper::new(Source::Pubmed, title);
    paper.ids.doi = Some(doi.to_owned());
    paper.abstract_sections = vec![AbstractSection { label: None, text: abstract_text.to_owned() }];
    paper.entered = Some(now().date_naive() - Duration::days(2));
    paper
}

/// The week: one paper on CAR-T cell exhaustion in other words, one that shares only the word
/// "exhaustion", and papers on other topics.
fn week() -> Vec<Paper> {
    let mut car_t = paper(
        "10.1000/car-t",
        "Dysfunction of chimeric antigen receptor T cells during chronic antigen stimulation",
        "Engineered CAR T lymphocytes progressively lose effector function, proliferative capacity and cytokine production under persistent tumour antigen, which limits durable remissions; inhibitory receptors PD-1, TIM-3 and LAG-3 rise as the cells become dysfunctional.",
    );
    // The subject terms PubMed's indexers give such a paper (MeSH headings).
    car_t.categories = vec!["Receptors, Chimeric Antigen".into(), "T-Cell Exhaustion".into()];
    vec![
        car_t,
        paper(
            "10.1000/aquifer",
            "Exhaustion of groundwater aquifers under irrigation in arid regions",
            "Decades of pumping for irrigation have exhausted shallow aquifers; we model recharge and the exhaustion of groundwater stocks across three basins.",
        ),
        paper(
            "10.1000/stars",
            "Stellar winds of massive stars in the Small Magellanic Cloud",
            "Mass-loss rates of O-type stars at low metallicity were measured from ultraviolet spectra.",
        ),
        paper(
            "10.1000/phthalate",
            "Phthalate exposure and liver enzymes in rats",
            "Rats fed diethylhexyl phthalate showed raised liver enzymes and hepatocyte hypertrophy.",
        ),
    ]
}

struct World {
    store: Store,
    index: PaperIndex,
    user: User,
    mail: MailContext,
}

fn world(papers: Vec<Paper>) -> World {
    let store = Store::temporary().expect("store");
    let index = PaperIndex::create_in_ram().expect("index");
    let mut writer = index.writer(index::MIN_WRITER_HEAP_BYTES).expect("writer");
    for paper in papers {
        writer.upsert(paper).expect("indexed");
    }
    writer.commit().expect("committed");
    let mut user = User::new(engine::UserId(Uuid::new_v4()), "ada@example.org", "hash".into(), now() - Duration::days(30));
    user.is_email_verified = true;
    // A paid plan: the tests make more digests than the free plan's two.
    user.subscription_tier = engine::Tier::Pro;
    let user =
        store.accounts().create(NewAccount { user, preferences: Preferences::default(), verification: None, mail: None }, now()).expect("account");
    let mail = MailContext { public_url: "https://papers.example.org".into(), support_email: "help@papers.example.org".into() };
    World { store, index, user, mail }
}

/// Embeds every indexed paper (what the background worker does) except those titled in `skip`.
fn embed_papers(world: &World, model: &embed::Embedder, skip: &[&str]) {
    let ids = world.index.work_ids_newest_first().expect("ids");
    let papers: Vec<_> =
        world.index.papers_by_id(&ids).expect("papers").into_iter().filter(|(_, paper)| !skip.contains(&paper.title.as_str())).collect();
    let texts: Vec<String> = papers.iter().map(|(_, paper)| embedding_text(paper)).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let vectors = model.embed_documents(&refs).expect("embedded");
    let stored: Vec<(u64, StoredVector)> = papers
        .iter()
        .zip(texts.iter().zip(vectors))
        .map(|((id, _), (text, vector))| (id.get(), StoredVector { model: model.fingerprint().to_owned(), text_hash: text_hash(text), vector }))
        .collect();
    world.store.papers().put_vectors(&stored).expect("stored");
}

/// The paper on CAR-T exhaustion in other words is sent on the subject terms its source gives it
/// (they weigh with its words), never on the whole topic's closeness alone, and nothing says
/// "in other words" for it.
#[test]
fn a_paper_in_other_words_needs_more_than_the_whole_topics_closeness() {
    let model = model();
    let indexed = world(week());
    embed_papers(&indexed, &model, &[]);
    let semantic = Digester::new(indexed.store.clone(), indexed.index.clone(), indexed.mail.clone()).with_embedder(Arc::clone(&model));
    let digest = semantic.run(&indexed.user, "CAR-T cell exhaustion", DigestKind::Immediate, now()).expect("digest").into_sent().expect("allowed");
    assert!(digest.papers_data.iter().any(|entry| entry.title == week()[0].title), "{:?}", digest.papers_data);
    assert!(digest.papers_data.iter().all(|entry| !entry.reason.contains("in other words")), "{:?}", digest.papers_data);

    let mut unindexed = week();
    unindexed[0].categories.clear();
    let bare = world(unindexed);
    embed_papers(&bare, &model, &[]);
    let semantic = Digester::new(bare.store.clone(), bare.index.clone(), bare.mail.clone()).with_embedder(Arc::clone(&model));
    let digest = semantic.run(&bare.user, "CAR-T cell exhaustion", DigestKind::Immediate, now()).expect("digest").into_sent().expect("allowed");
    assert!(!digest.papers_data.iter().any(|entry| entry.title == week()[0].title), "the topic's closeness alone: {:?}", digest.papers_data);
}

/// The walk's first digests, as tests of their bugs: a key concept needs evidence of its own.
#[test]
fn a_key_concept_is_shown_by_evidence_of_its_own_never_by_the_field() {
    let model = model();
    let mut tb_by_mesh = paper(
        "10.1000/tb-mesh",
        "Whole-genome sequencing of drug-resistant isolates from a cohort in Lima",
        "Resistance to rifampicin and isoniazid was predicted from rpoB and katG mutations in clinical isolates of the bacillus; treatment outcomes of resistant cases were followed for two years.",
    );
    tb_by_mesh.categories = vec!["Tuberculosis, Multidrug-Resistant".into(), "Mycobacterium tuberculosis".into()];
    let week = vec![
        paper(
            "10.1000/tb",
            "Drug resistance in tuberculosis: rifampicin-resistant TB across high-burden countries",
            "Multidrug-resistant tuberculosis threatens control programmes; we estimate drug resistance among new and previously treated TB patients from surveillance data.",
        ),
        paper(
            "10.1000/tb-abbrev",
            "Bedaquiline resistance in MDR-TB: mutations in Rv0678 and treatment response",
            "Among patients with MDR-TB treated with bedaquiline, acquired drug resistance through Rv0678 mutations predicted culture conversion failure in TB.",
        ),
        tb_by_mesh,
        paper(
            "10.1000/malaria",
            "Chloroquine drug resistance in Plasmodium falciparum: pfcrt mutations and treatment failure",
            "Drug resistance of the malaria parasite to chloroquine follows pfcrt mutations; resistance spread across Africa and treatment failure rose.",
        ),
        paper(
            "10.1000/hib",
            "Effectiveness of Haemophilus influenzae type b vaccine in infants",
            "Haemophilus influenzae type b conjugate vaccine effectiveness against invasive disease was 95% in infants; influenzae carriage fell after vaccine introduction.",
        ),
        paper(
            "10.1000/folate",
            "Folate and vitamin B6 supplementation and homocysteine in older adults",
            "Daily supplementation with folate and vitamin B6 lowered homocysteine; at day 28, d-dimer did not change with supplementation.",
        ),
    ];
    let walk = world(week);
    embed_papers(&walk, &model, &[]);
    let semantic = Digester::new(walk.store.clone(), walk.index.clone(), walk.mail.clone()).with_embedder(Arc::clone(&model));
    let mut reader = walk.user.clone();
    let mut digest_of = |topic: &str| {
        reader.id = engine::UserId(Uuid::new_v4());
        semantic.run(&reader, topic, DigestKind::Immediate, now()).expect("digest").into_sent().expect("allowed").papers_data
    };
    let tuberculosis = digest_of("tuberculosis drug resistance");
    let titles: Vec<&str> = tuberculosis.iter().map(|entry| entry.title.as_str()).collect();
    assert!(!titles.iter().any(|title| title.contains("Plasmodium")), "malaria is the same field, not tuberculosis: {titles:?}");
    let by_abbreviation = tuberculosis.iter().find(|entry| entry.title.contains("Bedaquiline")).expect("MDR-TB is tuberculosis");
    assert!(by_abbreviation.reason.contains("\"tuberculosis\" as \"MDR-TB\""), "{}", by_abbreviation.reason);
    if let Some(by_mesh) = tuberculosis.iter().find(|entry| entry.title.contains("Lima")) {
        assert!(by_mesh.reason.contains("as the subject \"Tuberculosis, Multidrug-Resistant\""), "{}", by_mesh.reason);
    }
    assert!(tuberculosis.iter().all(|entry| !entry.reason.contains("in other words")), "{tuberculosis:?}");
    let influenza = digest_of("influenza vaccine effectiveness");
    assert!(!influenza.iter().any(|entry| entry.title.contains("Haemophilus")), "influenzae is not influenza: {influenza:?}");
    let vitamin_d = digest_of("vitamin D supplementation");
    assert!(!vitamin_d.iter().any(|entry| entry.title.contains("Folate")), "the letter d is not vitamin D: {vitamin_d:?}");
}

#[test]
fn a_paper_on_the_topic_in_other_words_ranks_above_one_that_only_shares_a_word() {
    let model = model();
    let world = world(week());
    embed_papers(&world, &model, &[]);
    let semantic = Digester::new(world.store.clone(), world.index.clone(), world.mail.clone()).with_embedder(Arc::clone(&model));
    assert!(semantic.is_semantic());
    let digest = semantic
        .run(&world.user, "CAR-T cell exhaustion", DigestKind::Immediate, now())
        .expect("digest")
        .into_sent()
        .expect("the plan allows a digest");
    let titles: Vec<&str> = digest.papers_data.iter().map(|entry| entry.title.as_str()).collect();
    assert_eq!(titles.first().copied(), Some(week()[0].title.as_str()), "{:?}", digest.papers_data);
    let car_t = &digest.papers_data[0];
    assert!(car_t.relevance_score >= MIN_RELEVANCE, "{car_t:?}");
    assert!(!titles.iter().any(|title| title.contains("Stellar") || title.contains("Phthalate")), "{titles:?}");
    if let Some(aquifer) = digest.papers_data.iter().find(|entry| entry.title.contains("aquifers")) {
        assert!(aquifer.relevance_score < car_t.relevance_score, "{:?}", digest.papers_data);
    }
    assert_eq!(digest.searched_as, None, "the topic as typed, nothing added");

    // By its words alone the same week puts the shared word first.
    let lexical = Digester::new(world.store.clone(), world.index.clone(), world.mail.clone());
    let mut other = world.user.clone();
    other.id = engine::UserId(Uuid::new_v4());
    let by_words =
        lexical.run(&other, "CAR-T cell exhaustion", DigestKind::Immediate, now()).expect("digest").into_sent().expect("the plan allows a digest");
    let car_t_by_words = by_words.papers_data.iter().find(|entry| entry.title == week()[0].title).map(|entry| entry.relevance_score);
    assert!(car_t_by_words.unwrap_or(0.0) < car_t.relevance_score, "meaning lifts the paper: {:?} vs {car_t:?}", by_words.papers_data);
}

#[test]
fn a_week_with_nothing_on_the_topic_sends_nothing_with_a_model() {
    let model = model();
    let world = world(week().split_off(2));
    embed_papers(&world, &model, &[]);
    let digester = Digester::new(world.store.clone(), world.index.clone(), world.mail.clone()).with_embedder(model);
    let digest = digester
        .run(&world.user, "malaria vaccine trials in children", DigestKind::Immediate, now())
        .expect("digest")
        .into_sent()
        .expect("the plan allows a digest");
    assert!(digest.papers_data.is_empty(), "nearest vectors are not relevant papers: {:?}", digest.papers_data);
}

#[test]
fn a_paper_without_its_vector_yet_is_ranked_by_its_words() {
    let model = model();
    let world = world(week());
    embed_papers(&world, &model, &["Dysfunction of chimeric antigen receptor T cells during chronic antigen stimulation"]);
    let digester = Digester::new(world.store.clone(), world.index.clone(), world.mail.clone()).with_embedder(model);
    let digest = digester
        .run(&world.user, "chimeric antigen receptor T cells", DigestKind::Immediate, now())
        .expect("digest")
        .into_sent()
        .expect("the plan allows a digest");
    assert_eq!(digest.papers_data.first().map(|entry| entry.title.as_str()), Some(week()[0].title.as_str()), "{:?}", digest.papers_data);
}

fn aged(mut paper: Paper, days: i64) -> Paper {
    paper.entered = Some(now().date_naive() - Duration::days(days));
    paper
}

#[test]
fn a_first_digest_of_a_quiet_week_looks_back_30_then_90_days_and_says_so_while_weekly_ones_stay_new() {
    let papers = vec![
        aged(paper("10.1000/p1", "Phthalate exposure raises liver enzymes in rats", "Diethylhexyl phthalate and hepatic toxicity in rats."), 20),
        aged(
            paper("10.1000/p2", "Liver toxicity of phthalate plasticizers", "Phthalate plasticizers damage hepatocytes in a dose-dependent way."),
            25,
        ),
        aged(paper("10.1000/p3", "Phthalates and the liver: a review", "We review hepatic effects of phthalate exposure in animals and people."), 60),
        aged(paper("10.1000/p4", "Stellar winds of massive stars", "Mass-loss rates of O-type stars at low metallicity."), 1),
    ];
    let world = world(papers);
    let digester = Digester::new(world.store.clone(), world.index.clone(), world.mail.clone());
    let digest = digester
        .run(&world.user, "phthalate liver toxicity", DigestKind::Immediate, now())
        .expect("digest")
        .into_sent()
        .expect("the plan allows a digest");
    let widened = digest.widened.expect("widened");
    assert_eq!((widened.days, widened.new_this_week), (30, 0));
    assert_eq!(widened.note(), "Nothing new this week; the most relevant from the last 30 days.");
    assert_eq!(digest.papers_data.len(), 2, "{:?}", digest.papers_data);
    let mail = digester.render(&world.user, "ada@example.org", &digest).expect("mail");
    assert!(mail.text.contains("Nothing new this week; the most relevant from the last 30 days."), "{}", mail.text);
    assert!(mail.html.contains("Nothing new this week; the most relevant from the last 30 days."));

    // Another topic reaches back 90 days for its one paper; a weekly digest stays the week's.
    let review = digester
        .run(&world.user, "hepatic effects of phthalates review", DigestKind::Immediate, now())
        .expect("digest")
        .into_sent()
        .expect("the plan allows a digest");
    assert_eq!(review.widened.map(|widened| widened.days), Some(90), "{:?}", review.papers_data);
    assert!(review.papers_data.iter().any(|entry| entry.title == "Phthalates and the liver: a review"), "{:?}", review.papers_data);
    let weekly = digester
        .run(&world.user, "phthalate liver toxicity", DigestKind::Weekly, now())
        .expect("digest")
        .into_sent()
        .expect("the plan allows a digest");
    assert!(weekly.papers_data.is_empty() && weekly.widened.is_none(), "{weekly:?}");

    // Nothing on the topic in 90 days: an empty digest that says how far it looked.
    let nothing =
        digester.run(&world.user, "malaria vaccine", DigestKind::Immediate, now()).expect("digest").into_sent().expect("the plan allows a digest");
    assert!(nothing.papers_data.is_empty());
    let mail = digester.render(&world.user, "ada@example.org", &nothing).expect("mail");
    assert!(mail.text.contains("Nothing published in the last 90 days matched \"malaria vaccine\""), "{}", mail.text);
    assert!(!mail.text.contains("Nothing new this week"), "{}", mail.text);
}
