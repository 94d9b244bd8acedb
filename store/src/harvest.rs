//! Each source's harvest state (`engine::harvest::HarvestState`): its cursor and its last
//! success and error, so that a restarted service resumes where it stopped.

use engine::harvest::HarvestState;
use engine::paper::Source;

use crate::codec::{decode, encode};
use crate::{Papers, Result};

impl Papers<'_> {
    /// A source's harvest state; the empty state when it never ran.
    pub fn harvest_state(&self, source: Source) -> Result<HarvestState> {
        let stored = self.store.trees().harvest.get(source.as_str().as_bytes())?;
        Ok(stored.map(|bytes| decode("harvest state", &bytes)).transpose()?.unwrap_or_default())
    }

    /// Stores a source's harvest state and flushes it: the cursor must survive a crash.
    pub fn put_harvest_state(&self, source: Source, state: &HarvestState) -> Result<()> {
        let writer = self.store.writing()?;
        writer.harvest.insert(source.as_str().as_bytes(), encode("harvest state", state)?)?;
        writer.harvest.flush()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::Store;
    use engine::harvest::DayReport;

    use super::*;

    #[test]
    fn states_are_kept_per_source_and_survive_a_reopen() -> Result<()> {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let day = "2026-11-20".parse().expect("a date");
        {
            let store = Store::open(dir.path())?;
            assert_eq!(store.papers().harvest_state(Source::Pubmed)?, HarvestState::default());
            let mut state = HarvestState::default();
            state.record_day(DayReport { day, received: 12, added: 10, ..DayReport::default() }, "2026-11-22".parse().expect("a date"));
            store.papers().put_harvest_state(Source::Pubmed, &state)?;
        }
        let store = Store::open(dir.path())?;
        let state = store.papers().harvest_state(Source::Pubmed)?;
        assert_eq!((state.cursor, state.papers_added_total, state.records_total), (Some(day), 10, 12));
        assert_eq!(store.papers().harvest_state(Source::Arxiv)?, HarvestState::default());
        Ok(())
    }
}
