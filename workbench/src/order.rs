//! Stable sorting through one shared sort of positions.
//!
//! Every `slice::sort_by_key` call compiles its own copy of the standard library's sort for its
//! element and key types: 5–10 KB of wasm each. The page and the worker sort class essays, rows
//! and raters in a dozen places; here they all go through one sort of `usize` positions with a
//! comparison behind a `dyn` (measured: docs/performance.md, session 15). Same results as
//! `sort_by_key` (stable), for the small lists a page sorts (a class's essays, a table's rows).

use std::cmp::Ordering;

/// `0..n` in the stable order `cmp` gives.
#[inline(never)]
pub fn positions(n: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| cmp(a, b));
    order
}

/// Sort `items` by `key`, stably: what `items.sort_by_key(key)` gives.
pub fn sort_by_key<T, K: Ord>(items: &mut Vec<T>, key: impl Fn(&T) -> K) {
    let order = positions(items.len(), &|a, b| key(&items[a]).cmp(&key(&items[b])));
    let mut slots: Vec<Option<T>> = std::mem::take(items).into_iter().map(Some).collect();
    items.extend(order.into_iter().filter_map(|i| slots[i].take()));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against the standard library's stable sort on lists with many ties.
    #[test]
    fn sorts_as_the_standard_stable_sort() {
        let mut seed = 7u64;
        for n in [0, 1, 2, 3, 10, 33, 200] {
            let items: Vec<(u8, usize)> = (0..n)
                .map(|i| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                    ((seed >> 60) as u8, i)
                })
                .collect();
            let mut ours = items.clone();
            sort_by_key(&mut ours, |x| x.0);
            let mut std_ = items;
            std_.sort_by_key(|x| x.0);
            assert_eq!(ours, std_);
        }
    }
}
