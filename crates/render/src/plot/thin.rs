//! Thinning in pixel space: of a million points only those that change the picture are
//! drawn. Points arrive already placed on the canvas, in tenths of a pixel (the precision
//! the SVG is written to), so two points that would be written alike are alike here.

/// A point on the canvas, in tenths of a pixel.
pub(super) type Px = (i64, i64);

/// The vertices of a polyline that draw the same picture as all of `points`: of each run
/// of consecutive points within one pixel column, its first, lowest, highest and last
/// (in their order), so every spike survives. `None` breaks the line (a point the axes
/// cannot show); each returned part is drawn on its own.
pub(super) fn polyline(points: impl IntoIterator<Item = Option<Px>>) -> Vec<Vec<Px>> {
    let mut parts = Vec::new();
    let mut part: Vec<Px> = Vec::new();
    let mut column: Option<Column> = None;
    for point in points {
        match point {
            Some(p) => match &mut column {
                Some(c) if c.x == p.0.div_euclid(10) => c.add(p),
                _ => {
                    if let Some(c) = column.take() {
                        c.flush(&mut part);
                    }
                    column = Some(Column::new(p));
                }
            },
            None => {
                if let Some(c) = column.take() {
                    c.flush(&mut part);
                }
                if !part.is_empty() {
                    parts.push(std::mem::take(&mut part));
                }
            }
        }
    }
    if let Some(c) = column.take() {
        c.flush(&mut part);
    }
    if !part.is_empty() {
        parts.push(part);
    }
    parts
}

/// The corners of a staircase through `points`: level from each point to the next
/// point's x, then up or down to it. `None` breaks it, as in `polyline`.
pub(super) fn staircase(
    points: impl IntoIterator<Item = Option<Px>>,
) -> impl Iterator<Item = Option<Px>> {
    let mut previous: Option<Px> = None;
    points.into_iter().flat_map(move |point| {
        let corners = match (previous, point) {
            (Some((_, y0)), Some((x1, y1))) => [Some((x1, y0)), Some((x1, y1))],
            (None, Some(p)) => [Some(p), Some(p)],
            (_, None) => [None, None],
        };
        previous = point;
        corners
    })
}

/// One pixel column's run: which of its points to keep, with their order of arrival.
struct Column {
    x: i64,
    count: u64,
    first: (u64, Px),
    low: (u64, Px),
    high: (u64, Px),
    last: (u64, Px),
}

impl Column {
    fn new(p: Px) -> Column {
        Column {
            x: p.0.div_euclid(10),
            count: 1,
            first: (0, p),
            low: (0, p),
            high: (0, p),
            last: (0, p),
        }
    }

    fn add(&mut self, p: Px) {
        let n = (self.count, p);
        self.count += 1;
        // Canvas y grows downwards: the highest point has the smallest y.
        if p.1 > self.low.1 .1 {
            self.low = n;
        }
        if p.1 < self.high.1 .1 {
            self.high = n;
        }
        self.last = n;
    }

    fn flush(self, part: &mut Vec<Px>) {
        let mut kept = [self.first, self.low, self.high, self.last];
        kept.sort_by_key(|(n, _)| *n);
        for (_, p) in kept {
            if part.last() != Some(&p) {
                part.push(p);
            }
        }
    }
}

/// One point of `points` for each `cell` by `cell` square (tenths of a pixel) that holds
/// any: the first to arrive. Returned in the order of their cells, row by row (not the
/// set's order), so the output depends only on the input and consecutive points are
/// near each other.
pub(super) fn scatter(points: impl IntoIterator<Item = Px>, cell: i64) -> Vec<Px> {
    let cell = cell.max(1);
    let mut kept: Vec<((i64, i64), Px)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for p in points {
        let key = (p.1.div_euclid(cell), p.0.div_euclid(cell));
        if seen.insert(key) {
            kept.push((key, p));
        }
    }
    kept.sort_by_key(|(key, _)| *key);
    kept.into_iter().map(|(_, p)| p).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_keeps_its_first_lowest_highest_and_last_point_in_order() {
        // One column (x 100..109 tenths): y goes 50, 90, 10, 40, 30.
        let points = [(100, 50), (101, 90), (102, 10), (103, 40), (109, 30)];
        let parts = polyline(points.map(Some));
        assert_eq!(parts, [vec![(100, 50), (101, 90), (102, 10), (109, 30)]]);
        // A point between a column's first and last that is neither extreme goes; the
        // next column starts its own run.
        let points = [(100, 5), (102, 6), (103, 4), (104, 5), (105, 5), (110, 7)];
        let parts = polyline(points.map(Some));
        assert_eq!(
            parts,
            [vec![(100, 5), (102, 6), (103, 4), (105, 5), (110, 7)]]
        );
    }

    #[test]
    fn a_point_the_axes_cannot_show_breaks_the_line() {
        let parts = polyline([Some((0, 0)), Some((20, 5)), None, Some((40, 9))]);
        assert_eq!(parts, [vec![(0, 0), (20, 5)], vec![(40, 9)]]);
        assert!(polyline([None, None]).is_empty());
    }

    #[test]
    fn a_million_points_keep_a_few_per_column_and_every_extreme() {
        // A noisy rising series across 500 pixel columns, with one spike each way.
        let mut y = 0i64;
        let points = (0..1_000_000i64).map(|i| {
            y = (y * 1_103_515_245 + 12_345).rem_euclid(1 << 20);
            let mut value = 3000 - i / 400 + y % 200;
            if i == 123_456 {
                value = -50;
            }
            if i == 654_321 {
                value = 9000;
            }
            Some((i / 200, value))
        });
        let parts = polyline(points);
        assert_eq!(parts.len(), 1);
        let kept = &parts[0];
        assert!(kept.len() <= 4 * 500, "{}", kept.len());
        assert!(kept.contains(&(123_456 / 200, -50)));
        assert!(kept.contains(&(654_321 / 200, 9000)));
        assert_eq!(kept[0], (0, 3000 + 12_345 % 200));
    }

    #[test]
    fn a_staircase_goes_level_then_vertical() {
        let corners: Vec<_> = staircase([Some((0, 100)), Some((50, 80)), Some((90, 60))])
            .flatten()
            .collect();
        assert_eq!(
            polyline(corners.into_iter().map(Some)),
            [vec![(0, 100), (50, 100), (50, 80), (90, 80), (90, 60)]]
        );
    }

    #[test]
    fn scatter_keeps_the_first_point_of_each_cell_in_cell_order() {
        let kept = scatter([(31, 0), (0, 0), (5, 29), (29, 5), (0, 30), (35, 2)], 30);
        assert_eq!(kept, [(0, 0), (31, 0), (0, 30)]);
    }
}
