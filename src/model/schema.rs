//! The checks made on a model file's outline, before any array is built:
//! every field of format version 1 has its type, every declared size (k,
//! n_features, D, training rows) agrees with the arrays, and every number
//! is in the range the format allows: exponents that f64 scaling can use,
//! centres and maps whose squared distances cannot overflow, weights that
//! cannot overflow or vanish, parameters in their declared ranges. Each
//! refusal names the field (`model.maps[0].rff_dim: …`).

use super::footprint::{Dims, Shape};
use super::outline::{Matrix, Node, Num, Nums};
use crate::solver::params::fmt_num;
use crate::text::{is_unsafe, printable};

type Check<T> = std::result::Result<T, String>;

/// The smallest and largest exponent of a finite non-zero f64: what
/// `scaling.exps` can hold (`preprocess::exponent` of a column's maximum).
pub(super) const EXPS: (i64, i64) = (-1074, 1023);
/// What `scaling.rescale_exp` can hold: minus the exponent of a maximum
/// outside the solvers' range.
pub(super) const RESCALE_EXPS: (i64, i64) = (-1023, 1074);
/// A positive weight of a kernel or map lies within 2^±700: its distances
/// (at most a few units, or a kernel's values) neither overflow nor vanish
/// below the precision that tells clusters apart.
const WEIGHT_EXP: i32 = 700;

/// The payload kind an algorithm's model has (its `model_kind`).
pub(super) fn kind_of(algorithm: &str) -> Option<&'static str> {
    crate::algo::find(algorithm)
        .ok()?
        .model_kind()
        .map(|k| k.name())
}

/// An object of the outline and where it is.
struct Obj<'a> {
    at: String,
    entries: &'a [(String, Node)],
}

impl<'a> Obj<'a> {
    fn of(at: String, n: &'a Node) -> Check<Obj<'a>> {
        match n {
            Node::Object(entries) => Ok(Obj { at, entries }),
            other => Err(format!(
                "{}: {} where an object belongs",
                shown(&at),
                other.kind()
            )),
        }
    }

    fn path(&self, key: &str) -> String {
        if self.at.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.at)
        }
    }

    /// A field that may be absent or null.
    fn opt(&self, key: &str) -> Option<&'a Node> {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
            .filter(|v| !matches!(v, Node::Null))
    }

    fn req(&self, key: &str) -> Check<&'a Node> {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
            .ok_or_else(|| format!("{}: missing", self.path(key)))
    }

    fn obj(&self, key: &str) -> Check<Obj<'a>> {
        Obj::of(self.path(key), self.req(key)?)
    }

    fn opt_obj(&self, key: &str) -> Check<Option<Obj<'a>>> {
        self.opt(key)
            .map(|n| Obj::of(self.path(key), n))
            .transpose()
    }

    fn text(&self, key: &str) -> Check<&'a str> {
        match self.req(key)? {
            Node::Str(s) => Ok(s),
            other => Err(self.wrong(key, other, "a string")),
        }
    }

    fn num(&self, key: &str) -> Check<f64> {
        match self.req(key)? {
            Node::Num(n) => Ok(n.as_f64()),
            other => Err(self.wrong(key, other, "a number")),
        }
    }

    /// A whole number ≥ 0 within `max`.
    fn uint(&self, key: &str, max: u64) -> Check<u64> {
        let v = match self.req(key)? {
            Node::Num(Num::U(v)) => *v,
            Node::Num(Num::I(v)) => return Err(format!("{}: {v} is negative", self.path(key))),
            Node::Num(Num::F(v)) => {
                return Err(format!(
                    "{}: {} is not a whole number",
                    self.path(key),
                    fmt_num(*v)
                ));
            }
            other => return Err(self.wrong(key, other, "a whole number")),
        };
        if v > max {
            return Err(format!("{}: {v} is above {max}", self.path(key)));
        }
        Ok(v)
    }

    /// A whole number within `range`.
    fn int(&self, key: &str, range: (i64, i64)) -> Check<i64> {
        let v = match self.req(key)? {
            Node::Num(Num::U(v)) => i64::try_from(*v).unwrap_or(i64::MAX),
            Node::Num(Num::I(v)) => *v,
            Node::Num(Num::F(v)) => {
                return Err(format!(
                    "{}: {} is not a whole number",
                    self.path(key),
                    fmt_num(*v)
                ));
            }
            other => return Err(self.wrong(key, other, "a whole number")),
        };
        if v < range.0 || v > range.1 {
            return Err(format!(
                "{}: {v} is outside [{}, {}]",
                self.path(key),
                range.0,
                range.1
            ));
        }
        Ok(v)
    }

    /// An array of `len` numbers.
    fn nums(&self, key: &str, len: u64) -> Check<Nums> {
        let s = match self.req(key)? {
            Node::Nums(s) => *s,
            other => return Err(self.wrong(key, other, "an array of numbers")),
        };
        if s.len != len {
            return Err(format!(
                "{}: has {} values, expected {len}",
                self.path(key),
                s.len
            ));
        }
        Ok(s)
    }

    /// An array of `len` whole numbers ≥ 0.
    fn uints(&self, key: &str, len: u64) -> Check<Nums> {
        let s = self.nums(key, len)?;
        if !s.all_uint {
            return Err(format!(
                "{}: holds a value that is not a whole number ≥ 0",
                self.path(key)
            ));
        }
        Ok(s)
    }

    /// A rows × cols array of arrays of numbers.
    fn matrix(&self, key: &str, rows: u64, cols: u64) -> Check<Matrix> {
        let m = match self.req(key)? {
            Node::Matrix(m) => *m,
            Node::Nums(s) if s.len == 0 => Matrix {
                rows: 0,
                cols: 0,
                cells: *s,
            },
            other => return Err(self.wrong(key, other, "an array of rows")),
        };
        if (m.rows, m.cols) != (rows, cols) {
            return Err(format!(
                "{}: is {}×{}, expected {rows}×{cols}",
                self.path(key),
                m.rows,
                m.cols
            ));
        }
        Ok(m)
    }

    fn list(&self, key: &str) -> Check<&'a [Node]> {
        match self.req(key)? {
            Node::List(v) => Ok(v),
            Node::Nums(s) if s.len == 0 => Ok(&[]),
            other => Err(self.wrong(key, other, "an array of objects")),
        }
    }

    fn wrong(&self, key: &str, got: &Node, want: &str) -> String {
        format!("{}: {} where {want} belongs", self.path(key), got.kind())
    }
}

fn shown(at: &str) -> &str {
    if at.is_empty() { "the top level" } else { at }
}

/// Refuses any text with a control character, anywhere in the file.
fn no_controls(n: &Node, at: &str) -> Check<()> {
    let bad = |s: &str, what: &str| {
        s.chars().find(|&c| is_unsafe(c)).map(|c| {
            format!(
                "{}: {what} '{}' holds the control character {}",
                shown(at),
                printable(s, &[]),
                c.escape_unicode()
            )
        })
    };
    match n {
        Node::Str(s) => bad(s, "the text").map_or(Ok(()), Err),
        Node::List(v) => v
            .iter()
            .enumerate()
            .try_for_each(|(i, c)| no_controls(c, &format!("{at}[{i}]"))),
        Node::Object(e) => e.iter().try_for_each(|(k, v)| {
            if let Some(m) = bad(k, "the key") {
                return Err(m);
            }
            no_controls(
                v,
                &if at.is_empty() {
                    k.clone()
                } else {
                    format!("{at}.{k}")
                },
            )
        }),
        _ => Ok(()),
    }
}

/// The largest |value| whose squares, summed over `p` features with a
/// factor `f`, stay finite: √(f64::MAX / (f·p)).
fn square_bound(f: f64, p: u64) -> f64 {
    (f64::MAX / (f * p.max(1) as f64)).sqrt()
}

fn bounded(at: &str, s: &Nums, bound: f64, why: &str) -> Check<()> {
    if s.max_abs > bound {
        return Err(format!(
            "{at}: a value of magnitude {:e} is above {bound:.3e}, {why}",
            s.max_abs
        ));
    }
    Ok(())
}

/// A weight of a kernel or map: 0, or a positive number within 2^±700.
fn weight(at: &str, w: f64) -> Check<()> {
    let lo = 2f64.powi(-WEIGHT_EXP);
    let hi = 2f64.powi(WEIGHT_EXP);
    if w == 0.0 || (lo..=hi).contains(&w) {
        return Ok(());
    }
    Err(format!(
        "{at}: {w:e} is not 0 or within [{lo:.3e}, {hi:.3e}] (beyond, its distances overflow or vanish)"
    ))
}

/// A bandwidth within 2^±500: the frequencies (N(0, 1/σ²)) and a kernel's
/// 1/(2σ²) stay finite, and so do the products of rows of ordinary size
/// with them; beyond, every row would be refused as too large.
pub(super) fn check_sigma(at: &str, sigma: f64) -> Check<()> {
    let (lo, hi) = (2f64.powi(-500), 2f64.powi(500));
    if (lo..=hi).contains(&sigma) {
        return Ok(());
    }
    Err(format!(
        "{at}: {sigma:e} is not a bandwidth within [{lo:.3e}, {hi:.3e}]"
    ))
}

/// The largest |statistic| of a kernel of weight `w`: its weighted
/// distance terms stay below 2^1000.
fn stat_bound(w: f64) -> f64 {
    let cap = 2f64.powi(1000);
    if w > 1.0 { cap / w } else { cap }
}

/// Columns `[start, end)` within `p`.
fn columns(o: &Obj, p: u64) -> Check<u64> {
    let c = o.uints("columns", 2)?;
    let (c0, c1) = (c.first, c.last);
    if !(c0 < c1 && c1 <= p as f64) {
        return Err(format!(
            "{}: must be [start, end) with start < end ≤ n_features = {p}",
            o.path("columns")
        ));
    }
    Ok(c1 as u64 - c0 as u64)
}

/// The model's dimensions once its outline passes every check.
pub(super) fn check(root: &Node) -> Check<Dims> {
    let top = Obj::of(String::new(), root)?;
    no_controls(root, "")?;
    top.text("meanscape")?;
    let algorithm = top.text("algorithm")?;
    let Some(expected_kind) = kind_of(algorithm) else {
        return Err(format!(
            "algorithm: '{}' is not an algorithm whose model this meanscape can read",
            printable(algorithm, &[])
        ));
    };
    let k = top.uint("k", u64::MAX)?;
    if k == 0 {
        return Err("k: is 0".into());
    }
    let p = top.uint("n_features", u64::MAX)?;
    if p == 0 {
        return Err("n_features: is 0".into());
    }
    params(&top, algorithm)?;
    if let Some(o) = top.opt_obj("options")? {
        for (key, _) in o.entries {
            o.text(key)?;
        }
    }
    let n = fit(&top, k)?;
    if let Some(s) = top.opt_obj("scaling")? {
        scaling(&s, p)?;
    }
    let m = top.obj("model")?;
    let kind = m.text("kind")?;
    if kind != expected_kind {
        return Err(format!(
            "model.kind: '{}' does not go with algorithm {algorithm}, whose model is '{expected_kind}'",
            printable(kind, &[])
        ));
    }
    let shape = match kind {
        "centroids" | "medians" => {
            let c = m.matrix("centroids", k, p)?;
            bounded(
                &m.path("centroids"),
                &c.cells,
                square_bound(4.0, p),
                "where squared distances overflow",
            )?;
            Shape::Centroids
        }
        "weighted" => weighted(&m, k, p)?,
        "kernel" => kernel(&m, k, p, n)?,
        _ => rff(&m, k, p)?,
    };
    Ok(Dims { k, p, shape })
}

fn params(top: &Obj, algorithm: &str) -> Check<()> {
    let o = top.obj("params")?;
    let declared = crate::algo::find(algorithm)
        .map(|a| a.params())
        .unwrap_or_default();
    for (name, _) in o.entries {
        let v = o.num(name)?;
        let Some(spec) = declared.iter().find(|s| s.name == name) else {
            return Err(format!(
                "{}: {algorithm} has no parameter of that name",
                o.path(name)
            ));
        };
        spec.check(v)
            .map_err(|e| format!("{}: {e}", o.path(name)))?;
    }
    Ok(())
}

/// Checks `fit`; returns the training rows.
fn fit(top: &Obj, k: u64) -> Check<u64> {
    let f = top.obj("fit")?;
    f.uint("seed", u64::MAX)?;
    if f.uint("restarts", u64::MAX)? == 0 {
        return Err("fit.restarts: is 0".into());
    }
    let n = f.uint("n", u64::MAX)?;
    if n == 0 {
        return Err("fit.n: is 0, a model fit on no rows".into());
    }
    f.num("objective")?;
    let sizes = f.uints("sizes", k)?;
    if sizes.sum_uint != u128::from(n) {
        return Err(format!(
            "fit.sizes: add up to {}, but fit.n is {n}",
            sizes.sum_uint
        ));
    }
    Ok(n)
}

fn scaling(s: &Obj, p: u64) -> Check<()> {
    let method = s.text("method")?;
    if !["standard", "minmax", "none"].contains(&method) {
        return Err(format!(
            "{}: '{}' is not standard, minmax or none",
            s.path("method"),
            printable(method, &[])
        ));
    }
    let exps = s.nums("exps", p)?;
    if !exps.all_int || (exps.min as i64) < EXPS.0 || (exps.max as i64) > EXPS.1 {
        return Err(format!(
            "{}: every exponent must be a whole number in [{}, {}], the exponents of finite numbers (found {} to {})",
            s.path("exps"),
            EXPS.0,
            EXPS.1,
            fmt_num(exps.min),
            fmt_num(exps.max)
        ));
    }
    s.nums("shift", p)?;
    let mult = s.nums("mult", p)?;
    if mult.min < 0.0 {
        return Err(format!(
            "{}: {} is negative (a multiplier is 1/sd or 1/range, or 0)",
            s.path("mult"),
            fmt_num(mult.min)
        ));
    }
    if s.opt("rescale_exp").is_some() {
        s.int("rescale_exp", RESCALE_EXPS)?;
    }
    Ok(())
}

fn weighted(m: &Obj, k: u64, p: u64) -> Check<Shape> {
    let c = m.matrix("centroids", k, p)?;
    m.nums("feature_weights", p)?;
    let v = m.nums("multipliers", p)?;
    if v.min < 0.0 {
        return Err(format!(
            "{}: {} is negative",
            m.path("multipliers"),
            fmt_num(v.min)
        ));
    }
    if v.max_abs == 0.0 {
        return Err(format!(
            "{}: all 0, so every row would be at distance 0 from every centre",
            m.path("multipliers")
        ));
    }
    // Σ v (x − c)² over p features stays finite for |x|, |c| ≤ bound.
    bounded(
        &m.path("centroids"),
        &c.cells,
        square_bound(4.0 * v.max_abs, p),
        "where the weighted squared distances overflow",
    )?;
    if let Some(st) = m.opt_obj("standardize")? {
        st.nums("mean", p)?;
        let sd = st.nums("sd", p)?;
        if sd.min < 0.0 {
            return Err(format!(
                "{}: {} is negative",
                st.path("sd"),
                fmt_num(sd.min)
            ));
        }
    }
    Ok(Shape::Weighted)
}

fn kernel(m: &Obj, k: u64, p: u64, n: u64) -> Check<Shape> {
    let t = m.matrix("train", n, p)?;
    bounded(
        &m.path("train"),
        &t.cells,
        square_bound(8.0, p),
        "where the kernel's squared norms overflow",
    )?;
    let labels = m.uints("labels", n)?;
    if n > 0 && labels.max >= k as f64 {
        return Err(format!(
            "{}: the label {} is not below k = {k}",
            m.path("labels"),
            fmt_num(labels.max)
        ));
    }
    if m.opt("sample_weights").is_some() {
        let w = m.nums("sample_weights", n)?;
        if w.min < 0.0 || !w.max_abs.is_finite() {
            return Err(format!(
                "{}: a weight is negative or not finite",
                m.path("sample_weights")
            ));
        }
    }
    let list = m.list("kernels")?;
    if list.is_empty() {
        return Err(format!("{}: no kernel", m.path("kernels")));
    }
    let mut kernels = Vec::new();
    let mut any_weight = false;
    for (i, node) in list.iter().enumerate() {
        let b = Obj::of(format!("{}[{i}]", m.path("kernels")), node)?;
        b.text("spec")?;
        columns(&b, p)?;
        let w = b.num("weight")?;
        weight(&b.path("weight"), w)?;
        any_weight |= w > 0.0;
        // Kernel values and their statistics: a distance adds three of
        // them, times the weight, over the kernels; all of it stays finite.
        let stat = stat_bound(w);
        let within = b.nums("within", k)?;
        bounded(
            &b.path("within"),
            &within,
            stat,
            "where the distances overflow",
        )?;
        let center = b.opt_obj("center")?;
        if let Some(c) = &center {
            let r = c.nums("row_means", n)?;
            bounded(
                &c.path("row_means"),
                &r,
                stat,
                "where the distances overflow",
            )?;
            let mean = c.num("mean")?;
            if mean.abs() > stat {
                return Err(format!("{}: {mean:e} is above {stat:.3e}", c.path("mean")));
            }
        }
        let normalize = b.opt_obj("normalize")?;
        if let Some(z) = &normalize {
            let d = z.nums("diag", n)?;
            bounded(&z.path("diag"), &d, stat, "where the distances overflow")?;
            let floor = z.num("floor")?;
            if !(0.0..=stat).contains(&floor) {
                return Err(format!(
                    "{}: {floor:e} is not in [0, {stat:.3e}]",
                    z.path("floor")
                ));
            }
        }
        if let Some(r) = b.opt_obj("rescale")? {
            let (lo, hi) = (r.num("min")?, r.num("max")?);
            let range = hi - lo;
            let tiny = 2f64.powi(-WEIGHT_EXP);
            if !(lo <= hi && lo.abs().max(hi.abs()) <= stat && (range == 0.0 || range >= tiny)) {
                return Err(format!(
                    "{}: min {lo:e} and max {hi:e} do not make a range of 0 or within [{tiny:.3e}, {stat:.3e}]",
                    r.at
                ));
            }
        }
        kernels.push((center.is_some(), normalize.is_some()));
    }
    if !any_weight {
        return Err(format!(
            "{}: every kernel has weight 0, so every row would be at distance 0 from every cluster",
            m.path("kernels")
        ));
    }
    Ok(Shape::Kernel { n, kernels })
}

fn rff(m: &Obj, k: u64, p: u64) -> Check<Shape> {
    let list = m.list("maps")?;
    if list.is_empty() {
        return Err(format!("{}: no feature map", m.path("maps")));
    }
    let mut maps = Vec::new();
    let mut any_weight = false;
    for (i, node) in list.iter().enumerate() {
        let f = Obj::of(format!("{}[{i}]", m.path("maps")), node)?;
        let cols = columns(&f, p)?;
        let sigma = f.num("sigma")?;
        check_sigma(&f.path("sigma"), sigma)?;
        // The largest D a run uses (the rff_dim parameter's range).
        let d = f.uint("rff_dim", crate::kernel::rff::MAX_DIM as u64)?;
        if d == 0 {
            return Err(format!("{}: is 0", f.path("rff_dim")));
        }
        f.uint("rff_seed", u64::MAX)?;
        f.uint("stream", u64::MAX)?;
        let w = f.num("weight")?;
        weight(&f.path("weight"), w)?;
        any_weight |= w > 0.0;
        let c = f.matrix("centres", k, 2 * d)?;
        // A mean of features [sin, cos]/√D lies within ±1/√D.
        bounded(
            &f.path("centres"),
            &c.cells,
            1.0,
            "where the means of features within ±1/√D belong",
        )?;
        maps.push((cols, d));
    }
    if !any_weight {
        return Err(format!(
            "{}: every map has weight 0, so every row would be at distance 0 from every cluster",
            m.path("maps")
        ));
    }
    Ok(Shape::Rff { maps })
}
