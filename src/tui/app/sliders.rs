//! The Parameters pane's sliders: k, seed and restarts, then every
//! parameter the chosen algorithm declares.

use super::App;
use super::slider::Slider;
use crate::algo::params::{Default as PDefault, ParamSpec, Scale};

fn run_spec(
    name: &'static str,
    symbol: &'static str,
    min: f64,
    max: f64,
    coarse: f64,
    help: &'static str,
) -> ParamSpec {
    ParamSpec {
        name,
        symbol,
        default: PDefault::Fixed(min),
        min,
        max,
        scale: Scale::Linear,
        step: 1.0,
        coarse,
        integer: true,
        help,
    }
}

impl App {
    /// Every slider of the Parameters pane, in order.
    pub fn sliders(&self) -> Vec<Slider> {
        let n = self.loaded().map_or(1000, |l| l.dataset.n());
        let mut k_spec = run_spec(
            "k",
            "k",
            1.0,
            n.min(500) as f64,
            5.0,
            "Number of clusters (default: the number of classes when labels are known).",
        );
        k_spec.default =
            PDefault::Fixed(self.loaded().and_then(|l| l.default_k()).unwrap_or(3) as f64);
        let mut seed_spec = run_spec(
            "seed",
            "seed",
            0.0,
            1e9,
            10.0,
            "Seed of the run; restart r uses seed + r. `r` re-runs with the next seed.",
        );
        seed_spec.default = PDefault::Fixed(0.0);
        let mut restarts_spec = run_spec(
            "restarts",
            "restarts",
            1.0,
            64.0,
            4.0,
            "Starts run in parallel; the lowest objective wins.",
        );
        restarts_spec.default = PDefault::Fixed(1.0);
        let mut out = vec![
            Slider {
                value: self.current_k() as f64,
                is_default: self.k.is_none(),
                spec: k_spec,
                auto: None,
            },
            Slider {
                value: self.seed as f64,
                is_default: self.seed == 0,
                spec: seed_spec,
                auto: None,
            },
            Slider {
                value: self.restarts as f64,
                is_default: self.restarts == 1,
                spec: restarts_spec,
                auto: None,
            },
        ];
        let algo = self.algo();
        for spec in algo.params() {
            let key = (algo.id().to_string(), spec.name.to_string());
            let auto = match spec.default {
                PDefault::Auto(_) => {
                    let k = self.current_k();
                    let ck = (algo.id().to_string(), spec.name.to_string(), k);
                    let cached = self.auto_cache.borrow().get(&ck).copied();
                    cached.unwrap_or_else(|| {
                        let v = self
                            .loaded()
                            .and_then(|l| algo.auto_param(spec.name, &l.problem, k).ok());
                        if self.loaded().is_some() {
                            self.auto_cache.borrow_mut().insert(ck, v);
                        }
                        v
                    })
                }
                PDefault::Fixed(_) => None,
            };
            let default = match spec.default {
                PDefault::Fixed(v) => v,
                PDefault::Auto(_) => auto.unwrap_or(f64::NAN),
            };
            let value = self.overrides.get(&key).copied().unwrap_or(default);
            out.push(Slider {
                is_default: !self.overrides.contains_key(&key),
                value,
                auto,
                spec,
            });
        }
        out
    }

    pub(super) fn commit_value(&mut self, index: usize, text: &str) {
        let sliders = self.sliders();
        let Some(s) = sliders.get(index) else { return };
        let parsed: Result<f64, String> = if text.eq_ignore_ascii_case("default") || text.is_empty()
        {
            Ok(f64::NAN)
        } else {
            text.parse::<f64>()
                .map_err(|_| format!("'{text}' is not a number"))
        };
        match parsed.and_then(|v| {
            if v.is_nan() {
                Ok(v)
            } else {
                s.spec.check(v).map_err(|e| e.to_string())
            }
        }) {
            Ok(v) => {
                self.prompt = None;
                self.set_slider(index, if v.is_nan() { None } else { Some(v) });
            }
            Err(why) => {
                if let Some(p) = self.prompt.as_mut() {
                    p.hint = why;
                }
            }
        }
    }

    pub(super) fn step_param(&mut self, index: usize, steps: i32, coarse: bool) {
        let sliders = self.sliders();
        let Some(s) = sliders.get(index) else { return };
        let v = s.spec.step_from(s.value, steps, coarse);
        if v != s.value {
            self.set_slider(index, Some(v));
        }
    }

    /// Sets slider `index` to `v` (None = back to its default) and
    /// schedules a run.
    pub fn set_slider(&mut self, index: usize, v: Option<f64>) {
        match index {
            0 => self.k = v.map(|x| x as usize),
            1 => self.seed = v.unwrap_or(0.0) as u64,
            2 => self.restarts = v.unwrap_or(1.0) as usize,
            _ => {
                let spec = &self.sliders()[index].spec;
                let key = (self.algo().id().to_string(), spec.name.to_string());
                match v {
                    Some(x) => self.overrides.insert(key, x),
                    None => self.overrides.remove(&key),
                };
            }
        }
        self.schedule_run();
    }
}
