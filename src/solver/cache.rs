//! The problem's cache: what is expensive to derive from the data (a Gram
//! matrix, a feature map, a bandwidth), each kind under its own key type.
//! A key's type fixes the type of what it keys, so a lookup needs no
//! check at run time; the key's text is what lists and families see.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Arc;
use type_map::concurrent::TypeMap;

/// A key of the problem's cache ([`super::Problem::cached`]).
pub trait CacheKey: Clone + Eq + Hash + Send + Sync + 'static {
    /// What the key stands for.
    type Value: Send + Sync + 'static;
    /// The key as [`super::Problem::cache_keys`] lists it; a family of
    /// items shares a prefix ([`super::Problem::retain_family`]).
    fn text(&self) -> &str;
}

/// Declares a cache key type: a key over its text, standing for `$value`.
///
/// ```ignore
/// crate::solver::cache::cache_key! {
///     /// A Gram matrix, under its spec's key.
///     pub GramKey => Gram
/// }
/// ```
macro_rules! cache_key {
    ($(#[$doc:meta])* $vis:vis $name:ident => $value:ty) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        $vis struct $name(pub String);

        impl $crate::solver::cache::CacheKey for $name {
            type Value = $value;
            fn text(&self) -> &str {
                &self.0
            }
        }
    };
}

pub(crate) use cache_key;

/// The items under one key type.
type Map<K> = HashMap<K, Arc<<K as CacheKey>::Value>>;

/// What is done to every map whatever its key type: listing and dropping
/// items by their key's text.
trait Entries {
    fn texts(&self) -> Vec<String>;
    fn retain(&mut self, keep: &dyn Fn(&str) -> bool);
}

impl<K: CacheKey> Entries for Map<K> {
    fn texts(&self) -> Vec<String> {
        self.keys().map(|k| k.text().to_string()).collect()
    }
    fn retain(&mut self, keep: &dyn Fn(&str) -> bool) {
        HashMap::retain(self, |k, _| keep(k.text()));
    }
}

/// The map of key type `K` in `maps`, as [`Entries`].
fn entries_of<K: CacheKey>(maps: &mut TypeMap) -> Option<&mut dyn Entries> {
    maps.get_mut::<Map<K>>().map(|m| m as &mut dyn Entries)
}

/// Reaches the map of one key type in a [`TypeMap`] without naming the type.
type Reach = fn(&mut TypeMap) -> Option<&mut dyn Entries>;

/// One map per key type.
#[derive(Default)]
pub(super) struct Cache {
    maps: TypeMap,
    /// How to reach each map in `maps` without its key type, one per key
    /// type seen: what spans every map goes through these.
    kinds: Vec<Reach>,
}

impl Cache {
    pub(super) fn get<K: CacheKey>(&self, key: &K) -> Option<Arc<K::Value>> {
        self.maps.get::<Map<K>>()?.get(key).cloned()
    }

    pub(super) fn insert<K: CacheKey>(&mut self, key: K, value: Arc<K::Value>) {
        if !self.maps.contains::<Map<K>>() {
            self.maps.insert(Map::<K>::new());
            self.kinds.push(entries_of::<K>);
        }
        if let Some(m) = self.maps.get_mut::<Map<K>>() {
            m.insert(key, value);
        }
    }

    pub(super) fn contains<K: CacheKey>(&self, key: &K) -> bool {
        self.maps
            .get::<Map<K>>()
            .is_some_and(|m| m.contains_key(key))
    }

    /// Keeps the items whose key's text `keep` accepts.
    pub(super) fn retain(&mut self, keep: &dyn Fn(&str) -> bool) {
        for kind in &self.kinds {
            if let Some(m) = kind(&mut self.maps) {
                m.retain(keep);
            }
        }
    }

    /// The texts of the keys held now.
    pub(super) fn texts(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        for kind in &self.kinds {
            if let Some(m) = kind(&mut self.maps) {
                out.extend(m.texts());
            }
        }
        out
    }

    pub(super) fn clear(&mut self) {
        self.retain(&|_| false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    cache_key! {
        /// A test key for numbers.
        Number => f64
    }
    cache_key! {
        /// A test key for words.
        Word => String
    }

    #[test]
    fn each_key_type_holds_its_own_values() {
        let mut c = Cache::default();
        c.insert(Number("a|1".into()), Arc::new(1.0));
        c.insert(Word("a|w".into()), Arc::new("w".to_string()));
        c.insert(Number("b|2".into()), Arc::new(2.0));
        assert_eq!(c.get(&Number("a|1".into())).as_deref(), Some(&1.0));
        assert_eq!(
            c.get(&Word("a|w".into())).as_deref().map(String::as_str),
            Some("w")
        );
        assert!(c.get(&Word("a|1".into())).is_none());
        let mut texts = c.texts();
        texts.sort();
        assert_eq!(texts, ["a|1", "a|w", "b|2"]);
        c.retain(&|t| !t.starts_with("a|"));
        assert_eq!(c.texts(), ["b|2"]);
        assert!(c.contains(&Number("b|2".into())));
        c.clear();
        assert!(c.texts().is_empty());
    }
}
