import streamlit as st

st.title("how_it_works")
