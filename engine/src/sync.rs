//! Taking a lock whose holder panicked: the one way every crate does it.
//!
//! A `std::sync` lock is poisoned when a thread panics while holding it. Papertide's locks guard
//! caches, counters and bookkeeping whose every write leaves them usable, so a poisoned lock is
//! taken anyway (the panic itself is a bug, reported where it happened) rather than turning one
//! panic into a panic in every later caller.

use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Locks `mutex`, taking it even when a panicking holder poisoned it.
pub fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Takes `lock` for reading, even when a panicking writer poisoned it.
pub fn read<T: ?Sized>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

/// Takes `lock` for writing, even when a panicking holder poisoned it.
pub fn write<T: ?Sized>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_poisoned_mutex_is_still_taken_with_its_last_value() {
        let shared = Arc::new(Mutex::new(1));
        let holder = Arc::clone(&shared);
        let panicked = std::thread::spawn(move || {
            let mut value = lock(&holder);
            *value = 2;
            panic!("holder panics with the lock held");
        })
        .join();
        assert!(panicked.is_err());
        assert!(shared.is_poisoned());
        assert_eq!(*lock(&shared), 2);
    }

    #[test]
    fn a_poisoned_rwlock_is_still_read_and_written() {
        let shared = Arc::new(RwLock::new(vec![1]));
        let holder = Arc::clone(&shared);
        let panicked = std::thread::spawn(move || {
            write(&holder).push(2);
            let _held = write(&holder);
            panic!("writer panics with the lock held");
        })
        .join();
        assert!(panicked.is_err());
        assert!(shared.is_poisoned());
        write(&shared).push(3);
        assert_eq!(*read(&shared), vec![1, 2, 3]);
    }
}
