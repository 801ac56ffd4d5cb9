//! Where the panes and sliders are on screen, as the last frame drew them:
//! the mouse's map.

use super::action::Pane;
use ratatui::layout::Rect;

/// Where things are on screen, for the mouse.
#[derive(Debug, Clone, Default)]
pub struct HitMap {
    pub panes: Vec<(Pane, Rect)>,
    pub sliders: Vec<(usize, Rect)>,
}

impl HitMap {
    pub fn pane_at(&self, x: u16, y: u16) -> Option<Pane> {
        self.panes
            .iter()
            .find(|(_, r)| x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height)
            .map(|(p, _)| *p)
    }

    pub fn slider_at(&self, x: u16, y: u16) -> Option<usize> {
        self.sliders
            .iter()
            .find(|(_, r)| x >= r.x && x < r.x + r.width && y == r.y)
            .map(|(i, _)| *i)
    }
}
