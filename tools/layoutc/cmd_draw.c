/* layoutc draw: pictures of a layout. The logical tensor as a grid (3-D and
 * 4-D as small multiples) with each element's offset, colored by tile; the
 * memory as a strip in offset order, colored by logical position, padding
 * hatched. Tiles are found from the offsets alone: a step from one element
 * to the next along a dim stays inside a tile when it moves the offset as
 * the first step along that dim does (union-find over those steps), so
 * plain strides give one tile and every tiling, blocking or Morton order
 * its own. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

#define DRAW_MAX_ELEMS 4096
#define DRAW_MAX_ALLOC 65536

typedef enum { FMT_SVG, FMT_TXT, FMT_HTML } Format;

typedef struct {
  LyType t;
  int rank;
  int64_t dims[4], numel, alloc;
  /* Padded grid: the last two dims run to their oneDNN padded extents, so
   * padding places inside a block or tile show as ghost cells. */
  int64_t rows_padded, cols_padded;
  /* The grid's dims (row, column) and the panels' (down, across); -1 for
   * none. Dims of extent 1 outside them are fixed at 0. */
  int grid_r, grid_c, pan_down, pan_across;
  bool blocked;
  LyBlocking blocking;
  int64_t *off;  /* per element, row-major logical order */
  int *tile;     /* per element: tile number, in order of first appearance */
  int ntiles;
  int64_t *elem; /* per offset: the element there, -1 for padding (-2: several) */
  char *type;
} Pic;

static int find(int *p, int x) {
  while (p[x] != x)
    x = p[x] = p[p[x]];
  return x;
}

/* Row-major linear index of idx. */
static int64_t linear(const Pic *p, const int64_t *idx) {
  int64_t l = 0;
  for (int d = 0; d < p->rank; d++)
    l = l * p->dims[d] + idx[d];
  return l;
}

static void unlinear(const Pic *p, int64_t l, int64_t *idx) {
  for (int d = p->rank - 1; d >= 0; d--) {
    idx[d] = l % p->dims[d];
    l /= p->dims[d];
  }
}

static bool find_tiles(Pic *p) {
  int *parent = malloc((size_t)p->numel * sizeof *parent), *number = malloc((size_t)p->numel * sizeof *number);
  if (!parent || !number) {
    free(parent);
    free(number);
    return false;
  }
  for (int64_t e = 0; e < p->numel; e++)
    parent[e] = (int)e;
  int64_t idx[4];
  for (int d = 0; d < p->rank; d++) {
    if (p->dims[d] < 2)
      continue;
    int64_t w = 1;
    for (int k = d + 1; k < p->rank; k++)
      w *= p->dims[k];
    int64_t step = p->off[w] - p->off[0];
    for (int64_t e = 0; e < p->numel; e++) {
      unlinear(p, e, idx);
      if (idx[d] + 1 < p->dims[d] && p->off[e + w] - p->off[e] == step)
        parent[find(parent, (int)e)] = find(parent, (int)(e + w));
    }
  }
  for (int64_t e = 0; e < p->numel; e++)
    number[e] = -1;
  p->ntiles = 0;
  for (int64_t e = 0; e < p->numel; e++) {
    int r = find(parent, (int)e);
    if (number[r] < 0)
      number[r] = p->ntiles++;
    p->tile[e] = number[r];
  }
  free(parent);
  free(number);
  return true;
}

static int64_t panel_rows(const Pic *p);
static int64_t panel_cols(const Pic *p);

/* The grid shows the two innermost dims of extent > 1 (so "nChw16c" on
 * 2x20x1x2 draws C against W, where its blocks are), filled up from the
 * innermost remaining dims; the other dims of extent > 1 (at most two, as
 * rank <= 4) index the panels. */
static void choose_dims(Pic *p) {
  int pick[2], npick = 0;
  bool used[4] = {0};
  for (int pass = 0; pass < 2; pass++)
    for (int d = p->rank - 1; d >= 0 && npick < 2; d--)
      if (!used[d] && (pass == 1 || p->dims[d] > 1)) {
        used[d] = true;
        pick[npick++] = d;
      }
  p->grid_c = npick > 0 ? (npick == 2 && pick[1] > pick[0] ? pick[1] : pick[0]) : -1;
  p->grid_r = npick == 2 ? (pick[1] > pick[0] ? pick[0] : pick[1]) : -1;
  p->pan_down = p->pan_across = -1;
  for (int d = p->rank - 1; d >= 0; d--)
    if (!used[d] && p->dims[d] > 1) {
      p->pan_down = p->pan_across;
      p->pan_across = d;
    }
  if (p->pan_down >= 0 && p->pan_down > p->pan_across) {
    int x = p->pan_down;
    p->pan_down = p->pan_across;
    p->pan_across = x;
  }
}

/* Fills p from t; false after reporting (the focus is operand 0). */
static bool pic_init(Pic *p, LyType t, const Args *a) {
  memset(p, 0, sizeof *p);
  p->t = t;
  p->rank = lyTypeGetRank(t);
  const char *name = operand_name(a, 0), *text = a->stdin_text && !strcmp(a->operand[0], "-") ? a->stdin_text
                                                                                               : a->operand[0];
  LyStatus s = lyTypeGetAllocElements(t, &p->alloc);
  if (s != LY_OK) {
    arg_error(name, text, 1, "cannot draw: %s", status_text(s));
    return false;
  }
  if (p->rank > 4) {
    arg_error(name, text, 1, "cannot draw rank %d: pictures show ranks 0 to 4", p->rank);
    return false;
  }
  lyTypeGetNumel(t, &p->numel);
  if (p->numel > DRAW_MAX_ELEMS || p->alloc > DRAW_MAX_ALLOC) {
    arg_error(name, text, 1, "too large to draw: %" PRId64 " elements in %" PRId64 " (at most %d in %d)", p->numel,
              p->alloc, DRAW_MAX_ELEMS, DRAW_MAX_ALLOC);
    return false;
  }
  for (int d = 0; d < p->rank; d++)
    p->dims[d] = lyTypeGetDim(t, d);
  p->off = malloc(((size_t)p->numel + 1) * sizeof *p->off);
  p->tile = malloc(((size_t)p->numel + 1) * sizeof *p->tile);
  p->elem = malloc(((size_t)p->alloc + 1) * sizeof *p->elem);
  p->type = lyTypeToString(t);
  if (!p->off || !p->tile || !p->elem || !p->type) {
    driver_error("out of memory");
    return false;
  }
  for (int64_t o = 0; o < p->alloc; o++)
    p->elem[o] = -1;
  int64_t idx[4];
  for (int64_t e = 0; e < p->numel; e++) {
    unlinear(p, e, idx);
    lyTypeGetOffset(t, idx, &p->off[e]);
    int64_t *slot = &p->elem[p->off[e]];
    *slot = *slot == -1 ? e : -2;
  }
  choose_dims(p);
  p->rows_padded = panel_rows(p);
  p->cols_padded = panel_cols(p);
  p->blocked = lyTypeGetBlocking(t, &p->blocking) == LY_OK;
  if (p->blocked && p->grid_c >= 0)
    p->cols_padded = p->blocking.padded_dims[p->grid_c];
  if (p->blocked && p->grid_r >= 0)
    p->rows_padded = p->blocking.padded_dims[p->grid_r];
  if (p->numel && !find_tiles(p)) {
    driver_error("out of memory");
    return false;
  }
  return true;
}

static void pic_free(Pic *p) {
  free(p->off);
  free(p->tile);
  free(p->elem);
  lyStringFree(p->type);
}

/* --- Panels: 2-D slices of the logical tensor ------------------------------ */

/* A panel fixes the leading dims (rank 3: one, rank 4: two); its grid is
 * the last two dims (rank 1: one row; rank 0: one cell). */
static int64_t panel_rows(const Pic *p) { return p->grid_r >= 0 ? p->dims[p->grid_r] : 1; }
static int64_t panel_cols(const Pic *p) { return p->grid_c >= 0 ? p->dims[p->grid_c] : 1; }
static int64_t panels_down(const Pic *p) { return p->pan_down >= 0 ? p->dims[p->pan_down] : 1; }
static int64_t panels_across(const Pic *p) { return p->pan_across >= 0 ? p->dims[p->pan_across] : 1; }

/* The logical index of grid place (r, c) in panel (pr, pc). */
static void index_of(const Pic *p, int64_t pr, int64_t pc, int64_t r, int64_t c, int64_t *idx) {
  for (int d = 0; d < p->rank; d++)
    idx[d] = 0;
  if (p->pan_down >= 0)
    idx[p->pan_down] = pr;
  if (p->pan_across >= 0)
    idx[p->pan_across] = pc;
  if (p->grid_r >= 0)
    idx[p->grid_r] = r;
  if (p->grid_c >= 0)
    idx[p->grid_c] = c;
}

static int64_t element_at(const Pic *p, int64_t pr, int64_t pc, int64_t r, int64_t c) {
  int64_t idx[4];
  index_of(p, pr, pc, r, c, idx);
  return linear(p, idx);
}

/* A panel's name, e.g. [1,:,0,:] (':' the grid's dims). */
static void panel_label(const Pic *p, int64_t pr, int64_t pc, char *buf, size_t n) {
  int64_t idx[4];
  index_of(p, pr, pc, 0, 0, idx);
  size_t k = (size_t)snprintf(buf, n, "[");
  for (int d = 0; d < p->rank && k < n; d++) {
    if (d == p->grid_r || d == p->grid_c)
      k += (size_t)snprintf(buf + k, n - k, "%s:", d ? "," : "");
    else
      k += (size_t)snprintf(buf + k, n - k, "%s%" PRId64, d ? "," : "", idx[d]);
  }
  if (k < n)
    snprintf(buf + k, n - k, "]");
}

static bool has_panels(const Pic *p) { return p->rank >= 3; }

/* A grid place past the dims (r or c beyond its extent, inside the padded
 * one): its offset through oneDNN's formula on the blocking, which holds
 * over the padded index space. */
static int64_t ghost_offset(const Pic *p, int64_t pr, int64_t pc, int64_t r, int64_t c) {
  int64_t idx[4];
  index_of(p, pr, pc, r, c, idx);
  const LyBlocking *b = &p->blocking;
  int64_t off = b->offset0, blk = 1;
  for (int k = b->inner_nblks - 1; k >= 0; k--) {
    int d = b->inner_idxs[k];
    off += idx[d] % b->inner_blks[k] * blk;
    idx[d] /= b->inner_blks[k];
    blk *= b->inner_blks[k];
  }
  for (int d = 0; d < p->rank; d++)
    off += idx[d] * b->strides[d];
  return off;
}

static bool is_ghost(const Pic *p, int64_t r, int64_t c) { return r >= panel_rows(p) || c >= panel_cols(p); }

static void index_text(const Pic *p, int64_t e, char *buf, size_t n) {
  int64_t idx[4];
  unlinear(p, e, idx);
  size_t k = 0;
  snprintf(buf, n, "%s", p->rank ? "" : "()");
  for (int d = 0; d < p->rank && k < n; d++)
    k += (size_t)snprintf(buf + k, n - k, "%s%" PRId64, d ? "," : "", idx[d]);
}

/* --- Text ------------------------------------------------------------------- */

/* The tile of a grid place; a ghost belongs to the tile of the nearest
 * element (the padding closes the last block or tile of its row or column). */
static int tile_at(const Pic *p, int64_t pr, int64_t pc, int64_t r, int64_t c) {
  int64_t rr = r < panel_rows(p) ? r : panel_rows(p) - 1, cc = c < panel_cols(p) ? c : panel_cols(p) - 1;
  return p->tile[element_at(p, pr, pc, rr, cc)];
}

static int64_t offset_at(const Pic *p, int64_t pr, int64_t pc, int64_t r, int64_t c) {
  return is_ghost(p, r, c) ? ghost_offset(p, pr, pc, r, c) : p->off[element_at(p, pr, pc, r, c)];
}

static bool has_ghosts(const Pic *p) { return p->rows_padded > panel_rows(p) || p->cols_padded > panel_cols(p); }

static void draw_txt_panel(FILE *f, const Pic *p, int64_t pr, int64_t pc, int width) {
  int64_t rows = p->rows_padded, cols = p->cols_padded;
  bool mark = p->ntiles > 1 || has_ghosts(p);
  if (has_panels(p)) {
    char label[96];
    panel_label(p, pr, pc, label, sizeof label);
    fprintf(f, "%s\n", label);
  }
  for (int64_t r = 0; r < rows; r++) {
    for (int64_t c = 0; c < cols; c++) {
      int tile = tile_at(p, pr, pc, r, c);
      bool edge = c > 0 && tile != tile_at(p, pr, pc, r, c - 1);
      fprintf(f, "%s%*" PRId64, c == 0 ? "" : edge ? " |" : "  ", width, offset_at(p, pr, pc, r, c));
      if (mark)
        fputc(is_ghost(p, r, c) ? '.' : p->ntiles > 1 ? 'a' + tile % 26 : ' ', f);
    }
    fputc('\n', f);
    if (r + 1 == rows)
      break;
    bool any = false;
    for (int64_t c = 0; c < cols; c++)
      any = any || tile_at(p, pr, pc, r, c) != tile_at(p, pr, pc, r + 1, c);
    for (int64_t c = 0; c < cols && any; c++) {
      bool edge = tile_at(p, pr, pc, r, c) != tile_at(p, pr, pc, r + 1, c);
      fprintf(f, "%s", c ? "  " : "");
      for (int k = 0; k < width + mark; k++)
        fputc(edge ? '-' : ' ', f);
    }
    if (any)
      fputc('\n', f);
  }
}

static void draw_txt(FILE *f, const Pic *p) {
  int width = 1;
  for (int64_t v = p->alloc > 0 ? p->alloc - 1 : 0; v >= 10; v /= 10)
    width++;
  fprintf(f, "%s\n%" PRId64 " element%s in %" PRId64 " place%s, %d tile%s\n\n", p->type, p->numel,
          p->numel == 1 ? "" : "s", p->alloc, p->alloc == 1 ? "" : "s", p->ntiles, p->ntiles == 1 ? "" : "s");
  fputs(p->ntiles > 1 ? "logical: each element's offset and its tile (a, b, ...); '|' and '-' mark tile edges"
                      : "logical: each element's offset",
        f);
  fputs(has_ghosts(p) ? "; '.' a padding place of the block\n" : "\n", f);
  if (p->numel == 0)
    fputs("(no elements)\n", f);
  for (int64_t pr = 0; pr < panels_down(p) && p->numel; pr++)
    for (int64_t pc = 0; pc < panels_across(p); pc++)
      draw_txt_panel(f, p, pr, pc, width);
  fputs("\nmemory: the element at each offset; '.' padding, '*' several\n", f);
  for (int64_t o = 0; o < p->alloc; o++) {
    char buf[64];
    if (p->elem[o] >= 0)
      index_text(p, p->elem[o], buf, sizeof buf);
    else
      snprintf(buf, sizeof buf, "%s", p->elem[o] == -1 ? "." : "*");
    bool last = o % 8 == 7 || o + 1 == p->alloc;
    fprintf(f, "%s%*" PRId64 ": %-*s", o % 8 ? " " : "", width, o, last ? 0 : p->rank * 4 + 1, buf);
    if (last)
      fputc('\n', f);
  }
}

/* --- SVG and HTML ------------------------------------------------------------ */

#define CELL_W 34
#define CELL_H 22
#define GAP 18
#define STRIP_W 32
#define STRIP_CELL 18

/* 20 colors, neighbours in the list far apart in hue, so that the tiles of
 * a Morton order or a 4x4 tiling (16) never share one. */
static const char *const palette[] = {"#8ecae6", "#ffb703", "#90be6d", "#f28482", "#b8b8ff", "#f6bd60", "#84a59d",
                                      "#e5989b", "#a8dadc", "#ffd6a5", "#cdb4db", "#bde0fe", "#c9e4a4", "#ff9f1c",
                                      "#9bf6ff", "#d4a373", "#e9c46a", "#f4acb7", "#a0c4ff", "#caffbf"};
#define PALETTE_N ((int)(sizeof palette / sizeof *palette))

static void xml_text(FILE *f, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '&': fputs("&amp;", f); break;
    case '"': fputs("&quot;", f); break;
    default: fputc(*s, f);
    }
  }
}

static void svg_panel(FILE *f, const Pic *p, int64_t pr, int64_t pc, int x0, int y0) {
  int64_t rows = p->rows_padded, cols = p->cols_padded;
  if (has_panels(p)) {
    char label[96];
    panel_label(p, pr, pc, label, sizeof label);
    fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"label\">%s</text>\n", x0, y0 - 4, label);
  }
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < cols; c++) {
      int x = x0 + (int)c * CELL_W, y = y0 + (int)r * CELL_H;
      if (is_ghost(p, r, c)) {
        fprintf(f,
                "<g class=\"cell ghost\"><title>padding, offset %" PRId64 "</title><rect class=\"pad\" x=\"%d\" "
                "y=\"%d\" width=\"%d\" height=\"%d\"/><text x=\"%d\" y=\"%d\">%" PRId64 "</text></g>\n",
                offset_at(p, pr, pc, r, c), x, y, CELL_W, CELL_H, x + CELL_W / 2, y + CELL_H / 2 + 4,
                offset_at(p, pr, pc, r, c));
        continue;
      }
      int64_t e = element_at(p, pr, pc, r, c);
      char idx[64];
      index_text(p, e, idx, sizeof idx);
      fprintf(f,
              "<g class=\"cell\"><title>(%s) offset %" PRId64 ", tile %d</title><rect x=\"%d\" y=\"%d\" width=\"%d\" "
              "height=\"%d\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">%" PRId64 "</text></g>\n",
              idx, p->off[e], p->tile[e], x, y, CELL_W, CELL_H, palette[p->tile[e] % PALETTE_N], x + CELL_W / 2,
              y + CELL_H / 2 + 4, p->off[e]);
    }
}

/* A color for logical position e: a hue walk through row-major order. */
static void position_color(const Pic *p, int64_t e, char *buf, size_t n) {
  double t = p->numel > 1 ? (double)e / (double)(p->numel - 1) : 0;
  snprintf(buf, n, "hsl(%d,70%%,%d%%)", (int)(t * 300), 55 + (int)(t * 20));
}

static int draw_svg_body(FILE *f, const Pic *p) {
  int64_t rows = p->rows_padded, cols = p->cols_padded, down = panels_down(p), across = panels_across(p);
  int pw = (int)cols * CELL_W, ph = (int)rows * CELL_H;
  int grid_w = (int)across * (pw + GAP), grid_h = (int)down * (ph + GAP + 12);
  int strip_cols = p->alloc < STRIP_W ? (int)p->alloc : STRIP_W, strip_rows = (int)((p->alloc + STRIP_W - 1) / STRIP_W);
  int width = 40 + (grid_w > strip_cols * STRIP_CELL + 40 ? grid_w : strip_cols * STRIP_CELL + 40);
  char logical[160], memory[160];
  snprintf(logical, sizeof logical, "logical: offset of each element, colored by tile (%d tile%s)%s", p->ntiles,
           p->ntiles == 1 ? "" : "s", has_ghosts(p) ? "; hatched: padding places of the blocks" : "");
  snprintf(memory, sizeof memory, "memory: offsets 0..%" PRId64 " in order, colored by logical position%s",
           p->alloc > 0 ? p->alloc - 1 : 0, p->alloc > p->numel ? " (hatched: padding)" : "");
  /* Room for the longest label (12 px monospace: 7.5 px a character). */
  size_t longest = strlen(p->type);
  longest = strlen(logical) > longest ? strlen(logical) : longest;
  longest = strlen(memory) > longest ? strlen(memory) : longest;
  int label = 40 + (int)(longest * 15 / 2);
  width = width < label ? label : width;
  int strip_y = 60 + grid_h + 40, height = strip_y + strip_rows * STRIP_CELL + 20;
  fprintf(f,
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
          "font-family=\"monospace\" font-size=\"11\">\n",
          width, height, width, height);
  fputs("<style>.cell text{text-anchor:middle} rect{stroke:#333;stroke-width:0.5} "
        ".pad{fill:url(#hatch)} .ghost text{fill:#555} .label{font-size:12px}</style>\n"
        "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
        "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#eee\" stroke=\"none\"/>"
        "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#ccc\" stroke-width=\"1.5\"/></pattern></defs>\n",
          f);
  fputs("<text x=\"20\" y=\"20\" class=\"label\">", f);
  xml_text(f, p->type);
  fprintf(f, "</text>\n<text x=\"20\" y=\"38\" class=\"label\">%s</text>\n", logical);
  for (int64_t pr = 0; pr < down && p->numel; pr++)
    for (int64_t pc = 0; pc < across; pc++)
      svg_panel(f, p, pr, pc, 20 + (int)pc * (pw + GAP), 60 + (int)pr * (ph + GAP + 12));
  fprintf(f, "<text x=\"20\" y=\"%d\" class=\"label\">%s</text>\n", strip_y - 8, memory);
  for (int64_t o = 0; o < p->alloc; o++) {
    int x = 20 + (int)(o % STRIP_W) * STRIP_CELL, y = strip_y + (int)(o / STRIP_W) * STRIP_CELL;
    char idx[64], color[48];
    if (p->elem[o] < 0) {
      fprintf(f, "<rect class=\"pad\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"><title>offset %" PRId64 ": %s</title></rect>\n",
              x, y, STRIP_CELL, STRIP_CELL, o, p->elem[o] == -1 ? "padding" : "several elements");
      continue;
    }
    index_text(p, p->elem[o], idx, sizeof idx);
    position_color(p, p->elem[o], color, sizeof color);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"><title>offset %" PRId64 ": (%s)</title></rect>\n",
            x, y, STRIP_CELL, STRIP_CELL, color, o, idx);
  }
  fputs("</svg>\n", f);
  return 0;
}

static void draw_html(FILE *f, const Pic *p) {
  fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>layoutc draw ", f);
  xml_text(f, p->type);
  fputs("</title>\n</head>\n<body>\n<h1>", f);
  xml_text(f, p->type);
  fputs("</h1>\n", f);
  draw_svg_body(f, p);
  fputs("</body>\n</html>\n", f);
}

int cmd_draw(Args *a) {
  const char *fmt_name = args_value(a, "--format"), *out_path = args_value(a, "-o");
  Format fmt = FMT_SVG;
  if (!fmt_name && out_path && strlen(out_path) >= 4 && !strcmp(out_path + strlen(out_path) - 4, ".txt"))
    fmt = FMT_TXT;
  else if (!fmt_name && out_path && strlen(out_path) >= 5 && !strcmp(out_path + strlen(out_path) - 5, ".html"))
    fmt = FMT_HTML;
  else if (fmt_name && !strcmp(fmt_name, "txt"))
    fmt = FMT_TXT;
  else if (fmt_name && !strcmp(fmt_name, "html"))
    fmt = FMT_HTML;
  else if (fmt_name && strcmp(fmt_name, "svg"))
    return usage_error(a->cmd, "--format takes svg, txt or html, not '%s'", fmt_name);
  LyContext ctx = new_context();
  LyType t = operand_type(ctx, a, 0);
  Pic p;
  int rc = EXIT_BAD_INPUT;
  if (lyTypeIsNull(t) || !pic_init(&p, t, a)) {
    if (!lyTypeIsNull(t))
      pic_free(&p);
    lyContextDestroy(ctx);
    return rc;
  }
  FILE *f = open_output(out_path);
  if (f) {
    if (fmt == FMT_TXT)
      draw_txt(f, &p);
    else if (fmt == FMT_HTML)
      draw_html(f, &p);
    else
      draw_svg_body(f, &p);
    rc = close_output(f, out_path) ? 0 : EXIT_BAD_INPUT;
  }
  pic_free(&p);
  lyContextDestroy(ctx);
  return rc;
}
