//! A tiny built-in bitmap font (3 x 5 pixels a glyph) for labels drawn into pictures:
//! digits, letters (lower case drawn as upper case) and `. , - : ( ) / % + = _`.

/// Rows of a glyph, top to bottom, 3 bits each (the high bit is the left pixel).
fn glyph(c: char) -> [u8; 5] {
    match c.to_ascii_uppercase() {
        '0' => [7, 5, 5, 5, 7],
        '1' => [2, 6, 2, 2, 7],
        '2' => [7, 1, 7, 4, 7],
        '3' => [7, 1, 7, 1, 7],
        '4' => [5, 5, 7, 1, 1],
        '5' => [7, 4, 7, 1, 7],
        '6' => [7, 4, 7, 5, 7],
        '7' => [7, 1, 1, 1, 1],
        '8' => [7, 5, 7, 5, 7],
        '9' => [7, 5, 7, 1, 7],
        'A' => [2, 5, 7, 5, 5],
        'B' => [6, 5, 6, 5, 6],
        'C' => [3, 4, 4, 4, 3],
        'D' => [6, 5, 5, 5, 6],
        'E' => [7, 4, 6, 4, 7],
        'F' => [7, 4, 6, 4, 4],
        'G' => [3, 4, 5, 5, 3],
        'H' => [5, 5, 7, 5, 5],
        'I' => [7, 2, 2, 2, 7],
        'J' => [1, 1, 1, 5, 2],
        'K' => [5, 5, 6, 5, 5],
        'L' => [4, 4, 4, 4, 7],
        'M' => [5, 7, 7, 5, 5],
        'N' => [6, 5, 5, 5, 5],
        'O' => [2, 5, 5, 5, 2],
        'P' => [6, 5, 6, 4, 4],
        'Q' => [2, 5, 5, 6, 3],
        'R' => [6, 5, 6, 5, 5],
        'S' => [3, 4, 2, 1, 6],
        'T' => [7, 2, 2, 2, 2],
        'U' => [5, 5, 5, 5, 7],
        'V' => [5, 5, 5, 5, 2],
        'W' => [5, 5, 7, 7, 5],
        'X' => [5, 5, 2, 5, 5],
        'Y' => [5, 5, 2, 2, 2],
        'Z' => [7, 1, 2, 4, 7],
        ' ' => [0, 0, 0, 0, 0],
        '.' => [0, 0, 0, 0, 2],
        ',' => [0, 0, 0, 2, 4],
        '-' => [0, 0, 7, 0, 0],
        ':' => [0, 2, 0, 2, 0],
        '(' => [1, 2, 2, 2, 1],
        ')' => [4, 2, 2, 2, 4],
        '/' => [1, 1, 2, 4, 4],
        '%' => [5, 1, 2, 4, 5],
        '+' => [0, 2, 7, 2, 0],
        '=' => [0, 7, 0, 7, 0],
        '_' => [0, 0, 0, 0, 7],
        _ => [7, 1, 2, 0, 2],
    }
}

/// Width in pixels of `text` drawn at `scale` (4 pixels a character, less the last gap).
pub fn text_width(text: &str, scale: u32) -> u32 {
    (text.chars().count() as u32 * 4).saturating_sub(1) * scale
}

/// Draws `text` into an RGB picture `width` pixels wide (`rgb`: 3 bytes per pixel), its top
/// left corner at `(x, y)`, each font pixel a `scale x scale` square of `colour`. Pixels
/// outside the picture are skipped.
pub fn draw_text(
    rgb: &mut [u8],
    width: u32,
    x: u32,
    y: u32,
    text: &str,
    scale: u32,
    colour: [u8; 3],
) {
    let height = rgb.len() as u32 / 3 / width.max(1);
    for (i, c) in text.chars().enumerate() {
        let gx = x + i as u32 * 4 * scale;
        for (row, bits) in glyph(c).iter().enumerate() {
            for col in 0..3 {
                if bits & (4 >> col) == 0 {
                    continue;
                }
                for dy in 0..scale {
                    for dx in 0..scale {
                        let (px, py) = (gx + col * scale + dx, y + row as u32 * scale + dy);
                        if px < width && py < height {
                            let i = 3 * (py * width + px) as usize;
                            rgb[i..i + 3].copy_from_slice(&colour);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_lands_where_asked_and_is_clipped() {
        let mut rgb = vec![0u8; 3 * 10 * 6];
        draw_text(&mut rgb, 10, 0, 0, "1", 1, [255, 255, 255]);
        // '1': row 0 is .X.
        assert_eq!(&rgb[0..9], &[0, 0, 0, 255, 255, 255, 0, 0, 0]);
        draw_text(&mut rgb, 10, 8, 4, "888", 2, [9, 9, 9]); // mostly outside: no panic
        assert_eq!(text_width("ab", 2), 14);
    }
}
