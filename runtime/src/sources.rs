//! The paper sources' clients (and Crossref's), built from the settings once and shared by
//! everything that asks a source (its harvester, live search and seed lookups), and the
//! harvesters the service runs.

use std::collections::BTreeMap;
use std::sync::Arc;

use actix::Addr;
use actors::sources::{ArxivClient, ArxivConfig, BiorxivClient, BiorxivConfig, CrossrefClient, CrossrefConfig, PubmedClient, PubmedConfig};
use actors::{HarvestSchedule, Harvester, Indexer, LiveSearch, PaperSource, PreprintServer, SeedLookup, StatusBoard};
use anyhow::Context;
use config::{HarvestSettings, SourceSettings};
use engine::paper::Source;
use index::PaperIndex;
use store::Store;

/// The name Papertide gives NCBI as `tool`.
const NCBI_TOOL: &str = "papertide";
/// The index writer's memory budget in `serve` and `harvest`.
pub const WRITER_HEAP_BYTES: usize = 128 * 1024 * 1024;

/// The sources' clients, aimed where the settings say, built once so that everything asking a
/// source (its harvester, live search, seed lookups) shares one pace. bioRxiv and medRxiv share
/// one client (one host, one pace). Crossref, asked only for seeds' DOIs, is sent the NCBI
/// contact address as its `mailto`. Building them sends nothing.
#[derive(Debug, Clone)]
pub struct SourceClients {
    pub pubmed: PubmedClient,
    pub arxiv: ArxivClient,
    pub biorxiv: BiorxivClient,
    pub crossref: CrossrefClient,
}

impl SourceClients {
    pub fn new(settings: &SourceSettings) -> anyhow::Result<SourceClients> {
        let mut pubmed = PubmedConfig::new(NCBI_TOOL, settings.ncbi_email.clone(), settings.ncbi_api_key.clone());
        pubmed.base_url = settings.pubmed_url.clone();
        let arxiv = ArxivConfig { base_url: settings.arxiv_url.clone(), ..ArxivConfig::default() };
        let biorxiv = BiorxivConfig { base_url: settings.biorxiv_url.clone(), ..BiorxivConfig::default() };
        let crossref = CrossrefConfig::new(settings.crossref_url.clone(), Some(settings.ncbi_email.clone()));
        Ok(SourceClients {
            pubmed: PubmedClient::new(pubmed).context("the PubMed client")?,
            arxiv: ArxivClient::new(arxiv).context("the arXiv client")?,
            biorxiv: BiorxivClient::new(biorxiv).context("the bioRxiv/medRxiv client")?,
            crossref: CrossrefClient::new(crossref).context("the Crossref client")?,
        })
    }

    /// Each of `sources` as a harvestable source, through these clients.
    pub fn paper_sources(&self, sources: &[Source]) -> Vec<Arc<dyn PaperSource>> {
        sources
            .iter()
            .map(|&source| -> Arc<dyn PaperSource> {
                match source {
                    Source::Pubmed => Arc::new(self.pubmed.clone()),
                    Source::Arxiv => Arc::new(self.arxiv.clone()),
                    Source::Biorxiv | Source::Medrxiv => Arc::new(PreprintServer { client: self.biorxiv.clone(), server: source }),
                }
            })
            .collect()
    }

    /// Live search through PubMed's and arXiv's clients, indexing through `indexer`.
    pub fn live_search(&self, index: &PaperIndex, indexer: &Addr<Indexer>, board: &StatusBoard) -> LiveSearch {
        LiveSearch::new(index.clone(), indexer.clone(), board.clone()).with_pubmed(self.pubmed.clone()).with_arxiv(self.arxiv.clone())
    }

    /// Seed lookups in `index` through every client (PubMed, arXiv, bioRxiv/medRxiv, Crossref),
    /// indexing through `indexer`.
    pub fn seed_lookup(&self, index: &PaperIndex, indexer: &Addr<Indexer>) -> SeedLookup {
        SeedLookup::new(index.clone(), indexer.clone())
            .with_pubmed(self.pubmed.clone())
            .with_arxiv(self.arxiv.clone())
            .with_biorxiv(self.biorxiv.clone())
            .with_crossref(self.crossref.clone())
    }
}

/// Starts one supervised harvester per configured source (none when harvesting is off).
pub fn start_harvesters(
    clients: &SourceClients,
    harvest: &HarvestSettings,
    store: &Store,
    indexer: &Addr<Indexer>,
    board: &StatusBoard,
) -> BTreeMap<Source, Addr<Harvester>> {
    let schedule = HarvestSchedule { hour: harvest.hour, lookback_days: harvest.lookback_days };
    let mut started = BTreeMap::new();
    for source in clients.paper_sources(&harvest.sources) {
        let name = source.source();
        let harvester = Harvester::new(source, store.clone(), indexer.clone(), board.clone(), schedule);
        started.insert(name, harvester.start_supervised());
    }
    started
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_configured_crossref_default_is_the_clients_default_and_gets_the_contact() -> anyhow::Result<()> {
        assert_eq!(config::DEFAULT_CROSSREF_URL, actors::sources::crossref::DEFAULT_BASE_URL);
        let settings = SourceSettings {
            pubmed_url: config::DEFAULT_PUBMED_URL.parse()?,
            arxiv_url: config::DEFAULT_ARXIV_URL.parse()?,
            biorxiv_url: config::DEFAULT_BIORXIV_URL.parse()?,
            crossref_url: "http://127.0.0.1:9/crossref/".parse()?,
            ncbi_api_key: None,
            ncbi_email: "ops@papers.example.org".into(),
        };
        let clients = SourceClients::new(&settings)?;
        assert_eq!(clients.crossref.config().base_url.as_str(), "http://127.0.0.1:9/crossref/");
        assert_eq!(clients.crossref.config().mailto.as_deref(), Some("ops@papers.example.org"));
        Ok(())
    }
}
